// What on-call reads of a pushed alert: an Alertmanager webhook body as Alertmanager sends it,
// parsed by the push input, applied by the state machine and encoded as the store writes the
// outbox payload, then rendered for every channel type with its default templates.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "quell/adapters/inputs/alertmanager_payload.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/templates/incident_view.h"
#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/core/conditions/push_condition.h"
#include "quell/core/engine/evaluate.h"

namespace quell::templates {
namespace pushed_alert_message_test {

constexpr const char* kRunbook = "https://runbooks.example.com/disk-full?host=db-1&mount=/var";

// Alertmanager's webhook (version 4), one firing alert from a Prometheus rule with the usual
// summary, description and runbook_url annotations; it began firing at 08:55.
std::string AlertmanagerBody(const std::string& status) {
  return R"({"version":"4","groupKey":"{}:{alertname=\"DiskFull\"}","truncatedAlerts":0,)"
         R"("status":")" +
         status +
         R"(","receiver":"quell","groupLabels":{"alertname":"DiskFull"},)"
         R"("commonLabels":{"alertname":"DiskFull","severity":"warning","tenant":"acme"},)"
         R"("commonAnnotations":{},"externalURL":"http://alertmanager:9093",)"
         R"("alerts":[{"status":")" +
         status +
         R"(","labels":{"alertname":"DiskFull","instance":"db-1:9100",)"
         R"("job":"node","severity":"warning","tenant":"acme"},)"
         R"("annotations":{"summary":"Disk /var on db-1 is 97% full",)"
         R"("description":"Only 1.2 GiB left on /var of db-1; at this rate it fills within )"
         R"(2 hours.\nCheck the log rotation first.",)"
         R"("runbook_url":")" +
         kRunbook +
         R"("},"startsAt":"2026-12-02T08:55:00.123456789Z",)"
         R"("endsAt":"0001-01-01T00:00:00Z",)"
         R"("generatorURL":"http://prometheus:9090/graph?g0.expr=node_filesystem_avail_bytes",)"
         R"("fingerprint":"c6eadffa33fcdf37"}]})";
}

constexpr core::WallTime kReceived{std::chrono::hours{24 * 20789 + 9}};  // 2026-12-02T09:00:00Z

// The outbox payload the open of that push writes at 09:00 (received 5 minutes after it began
// firing), and the resolve's at 09:30.
struct Snapshots {
  std::string open;
  std::string resolve;
};

Snapshots Applied() {
  core::PushCondition condition;
  condition.common.name = "prom-alerts";
  condition.key = *core::KeyTemplate::Parse("{labels.tenant}:{labels.alertname}");
  core::Policy policy;
  policy.healthy_polls_to_close = 1;
  core::Incident incident;
  const jsonl::JsonPayloadEncoder encoder;
  Snapshots out;

  auto firing = inputs::ParseAlertmanagerPayload(AlertmanagerBody("firing"), {});
  EXPECT_TRUE(firing.ok()) << firing.error().message;
  const auto opened = core::ObservePushedAlerts(condition, *firing, kReceived);
  EXPECT_EQ(core::Evaluate(incident, opened.at(0), policy).transition, core::TransitionKind::kOpen);
  encoder.Encode(incident, core::TransitionKind::kOpen, out.open);

  auto resolved = inputs::ParseAlertmanagerPayload(AlertmanagerBody("resolved"), {});
  EXPECT_TRUE(resolved.ok()) << resolved.error().message;
  const auto healthy =
      core::ObservePushedAlerts(condition, *resolved, kReceived + std::chrono::minutes(30));
  EXPECT_EQ(core::Evaluate(incident, healthy.at(0), policy).transition,
            core::TransitionKind::kResolve);
  encoder.Encode(incident, core::TransitionKind::kResolve, out.resolve);
  return out;
}

core::OutboxRow Row(std::string payload) {
  core::OutboxRow row;
  row.key = "acme:DiskFull";
  row.channel = "ops";
  row.payload = std::move(payload);
  return row;
}

RendererOptions Options() {
  RendererOptions options;
  options.view.public_url = "https://quell.example.com";
  return options;
}

core::RenderedMessage Render(const std::string& type, const std::string& payload) {
  const MustacheRenderer renderer(Options());
  auto m = renderer.Render(type, Row(payload));
  EXPECT_TRUE(m.ok()) << type << ": " << m.error().message;
  return m.ok() ? *m : core::RenderedMessage{};
}

std::string Text(const core::RenderedMessage& m) { return m.subject + "\n" + m.body; }

constexpr const char* kAllTypes[] = {"email",    "slack",    "sms",         "pagerduty",
                                     "webhook",  "opsgenie", "google_chat", "ntfy",
                                     "telegram", "teams",    "discord",     "mattermost"};

TEST(PushedAlertMessageTest, TheViewReadsTheAnnotationsAndCountsFromStartsAt) {
  const Snapshots s = Applied();
  auto view = ParseIncidentView(s.open, ViewOptions{});
  ASSERT_TRUE(view.ok()) << view.error().message;
  EXPECT_TRUE(view->pushed);
  EXPECT_EQ(view->what, "Disk /var on db-1 is 97% full");
  EXPECT_EQ(view->summary, "Disk /var on db-1 is 97% full");
  EXPECT_EQ(view->description,
            "Only 1.2 GiB left on /var of db-1; at this rate it fills within 2 hours. Check the "
            "log rotation first.");
  EXPECT_EQ(view->runbook_url, kRunbook);
  EXPECT_EQ(view->since, "2026-12-02 08:55 UTC");  // startsAt, not quell's receipt at 09:00
  EXPECT_EQ(view->failing_for, "5m");
  EXPECT_EQ(view->count_text, "firing since 2026-12-02 08:55 UTC");
  EXPECT_EQ(view->severity, "warning");  // the alert's severity label
  ASSERT_EQ(view->examples.size(), 1u);
  EXPECT_EQ(view->examples[0].text.rfind("Disk /var on db-1 is 97% full - Only 1.2 GiB", 0), 0u)
      << view->examples[0].text;
}

TEST(PushedAlertMessageTest, EveryChannelSaysTheSummaryAndFiringSinceStartsAtNotPolls) {
  const Snapshots s = Applied();
  for (const char* type : kAllTypes) {
    const std::string text = Text(Render(type, s.open));
    EXPECT_NE(text.find("Disk /var on db-1 is 97% full"), std::string::npos) << type << text;
    EXPECT_NE(text.find("2026-12-02 08:55 UTC"), std::string::npos) << type << text;
    EXPECT_EQ(text.find("poll"), std::string::npos) << type << text;
    EXPECT_EQ(text.find("\"annotations\""), std::string::npos) << type << text;  // no raw JSON
    EXPECT_EQ(text.find("2026-12-02 09:00 UTC"), std::string::npos) << type << text;
  }
  const std::string resolve = Text(Render("webhook", s.resolve));
  EXPECT_NE(resolve.find("firing since 2026-12-02 08:55 UTC for 35m"), std::string::npos)
      << resolve;
}

TEST(PushedAlertMessageTest, TheDescriptionIsTextAndTheRunbookALinkInEachChannelsOwnForm) {
  const Snapshots s = Applied();
  const std::string description = "Only 1.2 GiB left on /var of db-1";
  for (const char* type : {"email", "slack", "pagerduty", "webhook", "opsgenie", "google_chat",
                           "ntfy", "telegram", "teams", "discord", "mattermost"}) {
    const std::string text = Text(Render(type, s.open));
    EXPECT_NE(text.find(description), std::string::npos) << type << text;
  }
  const std::string email = Render("email", s.open).body;
  EXPECT_NE(email.find(std::string("Runbook:    ") + kRunbook + "\n"), std::string::npos) << email;
  EXPECT_NE(email.find("Firing:     since 2026-12-02 08:55 UTC, for 5m\n"), std::string::npos)
      << email;
  // Slack's mrkdwn link, its "&" escaped as Slack asks.
  EXPECT_NE(Render("slack", s.open)
                .body.find("<https://runbooks.example.com/disk-full?host=db-1&amp;mount=/var|"
                           "open the runbook>"),
            std::string::npos)
      << Render("slack", s.open).body;
  EXPECT_NE(Render("google_chat", s.open).body.find(std::string("<") + kRunbook + "|"),
            std::string::npos);
  for (const char* markdown : {"teams", "discord", "mattermost"}) {
    EXPECT_NE(
        Render(markdown, s.open).body.find(std::string("[open the runbook](") + kRunbook + ")"),
        std::string::npos)
        << markdown << Render(markdown, s.open).body;
  }
  EXPECT_NE(Render("telegram", s.open).body.find(std::string("Runbook: ") + kRunbook),
            std::string::npos);
  // PagerDuty and ntfy also carry it in their own link fields, first, then the rule's graph
  // (generatorURL) as where the alert came from.
  for (const char* type : {"pagerduty", "ntfy", "slack", "email"}) {
    const core::RenderedMessage m = Render(type, s.open);
    ASSERT_EQ(m.links.size(), 2u) << type;
    EXPECT_EQ(m.links[0].url, kRunbook);
    EXPECT_EQ(m.links[1].url, "http://prometheus:9090/graph?g0.expr=node_filesystem_avail_bytes");
  }
}

TEST(PushedAlertMessageTest, AnAlertWithoutAnnotationsReadsAsItsAlertname) {
  std::string body = AlertmanagerBody("firing");
  const std::string annotations_start = R"("annotations":{)";
  const size_t from = body.find(annotations_start);
  const size_t to = body.find("},\"startsAt\"");
  body.replace(from, to + 1 - from, R"("annotations":{})");
  core::PushCondition condition;
  condition.common.name = "prom-alerts";
  condition.key = *core::KeyTemplate::Parse("{labels.tenant}:{labels.alertname}");
  auto alerts = inputs::ParseAlertmanagerPayload(body, {});
  ASSERT_TRUE(alerts.ok()) << alerts.error().message;
  core::Incident incident;
  core::Evaluate(incident, core::ObservePushedAlerts(condition, *alerts, kReceived).at(0), {});
  std::string payload;
  jsonl::JsonPayloadEncoder().Encode(incident, core::TransitionKind::kOpen, payload);
  auto view = ParseIncidentView(payload, ViewOptions{});
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->what, "DiskFull");
  EXPECT_TRUE(view->runbook_url.empty());
  const std::string text = Text(Render("slack", payload));
  EXPECT_EQ(text.find("runbook"), std::string::npos) << text;
  EXPECT_EQ(text.find("{\"annotations\""), std::string::npos) << text;
}

TEST(PushedAlertMessageTest, ARunbookThatIsNoWebAddressIsNoLink) {
  EXPECT_EQ(LinkableUrl("javascript:alert(1)"), "");
  EXPECT_EQ(LinkableUrl("/wiki/disk"), "");
  EXPECT_EQ(LinkableUrl("https://"), "");
  EXPECT_EQ(LinkableUrl("https:///path"), "");
  EXPECT_EQ(LinkableUrl(" HTTPS://wiki.example.com/a b "), "HTTPS://wiki.example.com/a%20b");
  // What would end a Slack or Markdown link is encoded, so the link cannot be bent.
  EXPECT_EQ(LinkableUrl("https://w.example.com/Disk_(full)|x>y"),
            "https://w.example.com/Disk_%28full%29%7Cx%3Ey");
}

TEST(PushedAlertMessageTest, APushConditionsObservationWithoutAlertEvidenceSaysPushedNotPolls) {
  const std::string payload =
      R"({"key":"acme:Up","condition":"prom-alerts","generation":1,"version":1,)"
      R"("transition":"open","status":"open","opened_at":"2026-12-02T09:00:00Z",)"
      R"("first_seen_at":"2026-12-02T09:00:00Z","last_seen_at":"2026-12-02T09:00:00Z",)"
      R"("event_count":1,"labels":{"tenant":"acme"},"evidence":[{"note":"from a script"}]})";
  ViewOptions options;
  auto plain = ParseIncidentView(payload, options);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->count_text, "failing in 1 poll of quell's");
  options.push_conditions.insert("prom-alerts");
  auto pushed = ParseIncidentView(payload, options);
  ASSERT_TRUE(pushed.ok());
  EXPECT_EQ(pushed->count_text, "firing since 2026-12-02 09:00 UTC");
}

}  // namespace pushed_alert_message_test
}  // namespace quell::templates
