// What on-call reads of one transition, field by field, on every channel type: payloads built
// by hand as the store writes them (with the labels and upstream counts of an incident
// snapshot), never taken from the renderer's own sample.
#include <gtest/gtest.h>

#include <string>

#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/core/delivery/message_limits.h"

namespace quell::templates {
namespace message_content_test {

constexpr const char* kKey = "t1/model-answer/TimeoutError";
constexpr const char* kTypes[] = {"email",   "slack", "sms",     "pagerduty",
                                  "webhook", "teams", "discord", "mattermost"};

// Three evidence objects of one error group, oldest first, the two newest alike: what
// GroupEvidence writes (every value a string), already redacted.
std::string Evidence() {
  return R"([{"group":"g1","title":"TimeoutError: upstream timed out","level":"fatal",)"
         R"("count":"9","last_seen":"2026-12-02T09:05:00Z","event_id":"e1",)"
         R"("message":"call to [url] took 30s"},)"
         R"({"group":"g1","title":"TimeoutError: upstream timed out","level":"fatal",)"
         R"("count":"12","last_seen":"2026-12-02T09:12:00Z","event_id":"e2",)"
         R"("message":"call to [url] took 31s"},)"
         R"({"group":"g1","title":"TimeoutError: upstream timed out","level":"fatal",)"
         R"("count":"12","last_seen":"2026-12-02T09:12:00Z","event_id":"e2",)"
         R"("message":"call to [url] took 31s"}])";
}

// An error group's snapshot; `upstream` adds contract A's upstream counts.
std::string ErrorPayload(const std::string& transition, bool upstream = true) {
  const bool resolved = transition == "resolve";
  std::string p = std::string(R"({"key":")") + kKey +
                  R"(","condition":"model-answer","generation":1,"version":3,)"
                  R"("transition":")" +
                  transition + R"(","status":")" + (resolved ? "resolved" : "open") +
                  R"(","opened_at":"2026-12-02T09:00:00Z","first_seen_at":"2026-12-02T08:58:10Z",)"
                  R"("last_seen_at":"2026-12-02T09:14:30Z")";
  if (resolved) p += R"(,"resolved_at":"2026-12-02T09:45:00Z")";
  p += R"(,"event_count":1,"evidence":)" + Evidence() +
       R"(,"labels":{"stage":"prod","tenant":"t1"})";
  if (upstream) {
    p += R"(,"upstream_count":12,"upstream_count_since_last_message":)";
    p += transition == "open" ? "12" : "3";
  }
  p += "}";
  return p;
}

std::string MetricPayload(const std::string& transition) {
  return std::string(R"({"key":"t1/error_rate","condition":"error-rate","generation":1,)") +
         R"("version":1,"transition":")" + transition +
         R"(","status":"open","opened_at":"2026-12-02T09:00:00Z",)"
         R"("first_seen_at":"2026-12-02T09:00:00Z","last_seen_at":"2026-12-02T09:20:00Z",)"
         R"("event_count":5,"evidence":[{"agg":"avg","direction":"above","metric":"error_rate",)"
         R"("points":5,"recovery":0.1,"series":1,"threshold":0.2,"value":0.31}],)"
         R"("labels":{"tenant":"t1"}})";
}

core::OutboxRow Row(std::string payload, std::string channel = "ops") {
  core::OutboxRow row;
  row.channel = std::move(channel);
  row.payload = std::move(payload);
  return row;
}

RendererOptions Options() {
  RendererOptions options;
  options.view.public_url = "https://quell.example.com";
  return options;
}

std::string Text(const core::RenderedMessage& m) { return m.subject + "\n" + m.body; }

TEST(MessageContentTest, EventsAreTheSourcesCountNotQuellsPolls) {
  const MustacheRenderer renderer(Options());
  const auto email = renderer.Render("email", Row(ErrorPayload("open")));
  ASSERT_TRUE(email.ok()) << email.error().message;
  EXPECT_NE(email->body.find("Events:     12\n"), std::string::npos) << email->body;
  EXPECT_NE(email->body.find("Counts:     12 errors upstream\n"), std::string::npos) << email->body;
  // Without contract A's field, the newest evidence's own count.
  const auto fallback = renderer.Render("email", Row(ErrorPayload("open", false)));
  EXPECT_NE(fallback->body.find("Events:     12\n"), std::string::npos) << fallback->body;
  for (const char* type : kTypes) {
    const auto m = renderer.Render(type, Row(ErrorPayload("open")));
    EXPECT_NE(Text(*m).find("12 errors upstream"), std::string::npos) << type << Text(*m);
  }
}

TEST(MessageContentTest, LastSeenIsTheErrorsNotThePollTime) {
  const MustacheRenderer renderer(Options());
  const auto email = renderer.Render("email", Row(ErrorPayload("open")));
  EXPECT_NE(email->body.find("Last seen:  2026-12-02T09:12:00Z\n"), std::string::npos)
      << email->body;
  EXPECT_EQ(email->body.find("09:14:30"), std::string::npos) << email->body;
}

TEST(MessageContentTest, EveryChannelSaysWhatIsFailingWhereAndSinceWhen) {
  const MustacheRenderer renderer(Options());
  for (const char* type : kTypes) {
    const auto m = renderer.Render(type, Row(ErrorPayload("open")));
    ASSERT_TRUE(m.ok()) << type;
    const std::string text = Text(*m);
    EXPECT_NE(text.find("TimeoutError: upstream timed out"), std::string::npos) << type << text;
    EXPECT_NE(text.find("tenant t1, stage prod, condition model-answer"), std::string::npos)
        << type << text;
    EXPECT_NE(text.find("2026-12-02 09:00 UTC"), std::string::npos) << type << text;
    EXPECT_NE(text.find(kKey), std::string::npos) << type << text;
    EXPECT_NE(text.find("quell incidents ack 't1/model-answer/TimeoutError'"), std::string::npos)
        << type << text;
  }
  const auto email = renderer.Render("email", Row(ErrorPayload("open")));
  EXPECT_NE(email->body.find("Failing:    since 2026-12-02 09:00 UTC, for 14m\n"),
            std::string::npos)
      << email->body;
  EXPECT_NE(email->body.find("quell silence add --key 't1/model-answer/TimeoutError' --for 1h"),
            std::string::npos);
  EXPECT_NE(email->body.find("(HTTP: POST https://quell.example.com/v1/incidents/"
                             "t1%2Fmodel-answer%2FTimeoutError/ack)"),
            std::string::npos)
      << email->body;
}

// Found by hand: a snapshot without contract A's labels (written before incidents kept them)
// still says where, from the evidence's tags.
TEST(MessageContentTest, WithoutLabelsWhereComesFromTheEvidenceTags) {
  std::string payload = ErrorPayload("open");
  const std::string labels = R"(,"labels":{"stage":"prod","tenant":"t1"})";
  payload.erase(payload.find(labels), labels.size());
  const std::string last = R"("message":"call to [url] took 31s"}])";
  payload.replace(payload.rfind(last), last.size(),
                  R"("message":"call to [url] took 31s","tags":{"agent_stage":"answer",)"
                  R"("tenant":"acme"}}])");
  const auto email = MustacheRenderer(Options()).Render("email", Row(payload));
  EXPECT_NE(email->body.find("Where:      tenant acme, stage answer, condition model-answer\n"),
            std::string::npos)
      << email->body;
}

TEST(MessageContentTest, RecentExamplesAreDistinct) {
  const MustacheRenderer renderer(Options());
  const auto email = renderer.Render("email", Row(ErrorPayload("open")));
  const std::string newest = "  - TimeoutError: upstream timed out - call to [url] took 31s\n";
  const std::string older = "  - TimeoutError: upstream timed out - call to [url] took 30s\n";
  const size_t at = email->body.find(newest);
  ASSERT_NE(at, std::string::npos) << email->body;
  EXPECT_EQ(email->body.find(newest, at + 1), std::string::npos) << email->body;
  EXPECT_GT(email->body.find(older), at) << email->body;
}

TEST(MessageContentTest, SeverityFollowsTheSourceLevelAndAResolveSaysResolved) {
  const MustacheRenderer renderer(Options());
  const auto open = renderer.Render("sms", Row(ErrorPayload("open")));
  EXPECT_EQ(open->severity, "fatal");
  EXPECT_EQ(open->body.rfind("FATAL model-answer opened: ", 0), 0U) << open->body;
  const auto resolve = renderer.Render("sms", Row(ErrorPayload("resolve")));
  EXPECT_EQ(resolve->body.rfind("RESOLVED model-answer resolved: ", 0), 0U) << resolve->body;
  EXPECT_EQ(resolve->body.find("Ack:"), std::string::npos) << resolve->body;
  // A condition's configured severity still wins over the source's level.
  RendererOptions options = Options();
  options.view.condition_severity = {{"model-answer", "warning"}};
  EXPECT_EQ(MustacheRenderer(options).Render("email", Row(ErrorPayload("open")))->severity,
            "warning");
}

TEST(MessageContentTest, ARenotifySaysWhatChangedSinceTheLastMessage) {
  const MustacheRenderer renderer(Options());
  const auto email = renderer.Render("email", Row(ErrorPayload("renotify")));
  EXPECT_NE(email->body.find("Counts:     12 errors upstream, 3 since the last message\n"),
            std::string::npos)
      << email->body;
  EXPECT_NE(email->body.find("Changed:    3 more errors upstream since the last message\n"),
            std::string::npos)
      << email->body;
  const auto open = renderer.Render("email", Row(ErrorPayload("open")));
  EXPECT_EQ(open->body.find("Changed:"), std::string::npos) << open->body;
}

TEST(MessageContentTest, ARenotifyNamesANewExample) {
  std::string payload = ErrorPayload("renotify");
  const std::string newest = R"(took 31s"}])";
  payload.replace(payload.rfind(newest), newest.size(), R"(took 45s"}])");
  const auto email = MustacheRenderer(Options()).Render("email", Row(payload));
  EXPECT_NE(
      email->body.find("Changed:    3 more errors upstream since the last message; new "
                       "example: TimeoutError: upstream timed out - call to [url] took 45s\n"),
      std::string::npos)
      << email->body;
}

TEST(MessageContentTest, AResolveSaysHowLongItLastedAndNeedsNoAction) {
  const MustacheRenderer renderer(Options());
  const auto email = renderer.Render("email", Row(ErrorPayload("resolve")));
  EXPECT_NE(email->body.find("Failing:    since 2026-12-02 09:00 UTC, for 45m\n"),
            std::string::npos)
      << email->body;
  EXPECT_NE(email->body.find("Next step:  none: it recovered\n"), std::string::npos) << email->body;
}

TEST(MessageContentTest, AMetricSaysItsValueAgainstTheThresholdAndRecoveryInWords) {
  const MustacheRenderer renderer(Options());
  for (const char* type : kTypes) {
    const auto m = renderer.Render(type, Row(MetricPayload("open")));
    ASSERT_TRUE(m.ok()) << type;
    EXPECT_NE(Text(*m).find("error_rate 0.31 is above the threshold 0.2 (recovers below 0.1)"),
              std::string::npos)
        << type << Text(*m);
    EXPECT_EQ(Text(*m).find("\"agg\""), std::string::npos) << type << Text(*m);
  }
  // A resolve's evidence is the last unhealthy reading: it says what it was.
  const auto resolve = renderer.Render("email", Row(MetricPayload("resolve")));
  EXPECT_NE(resolve->body.find("What:       error_rate 0.31 was above the threshold 0.2 "
                               "(recovers below 0.1)\n"),
            std::string::npos)
      << resolve->body;
  const auto email = renderer.Render("email", Row(MetricPayload("renotify")));
  EXPECT_NE(email->body.find("Counts:     failing in 5 polls of quell's\n"), std::string::npos)
      << email->body;
  EXPECT_NE(email->body.find("Where:      tenant t1, condition error-rate\n"), std::string::npos)
      << email->body;
}

TEST(MessageContentTest, TheDetailsLinkIsTheIncidentResourceUnderPublicUrl) {
  const MustacheRenderer renderer(Options());
  const auto email = renderer.Render("email", Row(ErrorPayload("open")));
  EXPECT_NE(email->body.find("Details:    https://quell.example.com/incidents/"
                             "t1%2Fmodel-answer%2FTimeoutError\n"),
            std::string::npos)
      << email->body;
  // dispatch.link_base, when set, keeps working and wins.
  RendererOptions options = Options();
  options.view.link_base_url = "https://wiki.example.com/q/";
  const auto based = MustacheRenderer(options).Render("email", Row(ErrorPayload("open")));
  EXPECT_NE(based->body.find("Details:    https://wiki.example.com/q/t1%2Fmodel-answer"),
            std::string::npos)
      << based->body;
  // Neither: no link at all.
  const auto none = MustacheRenderer(RendererOptions{}).Render("email", Row(ErrorPayload("open")));
  EXPECT_EQ(none->body.find("Details:"), std::string::npos);
}

TEST(MessageContentTest, ChannelLimitsHoldForASingleTransition) {
  RendererOptions options = Options();
  options.sms_max_segments = 2;
  const MustacheRenderer renderer(options);
  for (const char* transition : {"open", "renotify", "resolve"}) {
    const auto sms = renderer.Render("sms", Row(ErrorPayload(transition)));
    EXPECT_LE(core::CountSms(sms->body).segments, 2U) << sms->body;
    EXPECT_EQ(core::CountSms(sms->body).encoding, core::SmsEncoding::kGsm7) << sms->body;
    const auto pd = renderer.Render("pagerduty", Row(ErrorPayload(transition)));
    EXPECT_LE(pd->subject.size(), core::kPagerDutySummaryMaxChars);
    const auto slack = renderer.Render("slack", Row(ErrorPayload(transition)));
    EXPECT_LE(slack->body.size(), core::kSlackTextMaxChars);
  }
}

TEST(MessageContentTest, OldUserTemplatesKeepWorkingAndNewNamesPassTheCheck) {
  RendererOptions options = Options();
  options.channels["team-hook"] = {"webhook", "", "custom {{status}} {{event_count}}"};
  options.channels["new-hook"] = {
      "webhook", "",
      "{{what}} @ {{where}} {{count_text}} {{#labels}}{{name}}={{value}} {{/labels}}"
      "{{#has_changes}}{{changes}}{{/has_changes}} {{next_step}} {{ack_url}} {{polls}}"};
  EXPECT_TRUE(CheckTemplates(options).ok()) << CheckTemplates(options).error().message;
  const MustacheRenderer renderer(options);
  EXPECT_EQ(renderer.Render("webhook", Row(ErrorPayload("open"), "team-hook"))->body,
            "custom open 12");
  const auto custom = renderer.Render("webhook", Row(ErrorPayload("open"), "new-hook"));
  EXPECT_NE(custom->body.find("stage=prod tenant=t1 "), std::string::npos) << custom->body;
}

}  // namespace message_content_test
}  // namespace quell::templates
