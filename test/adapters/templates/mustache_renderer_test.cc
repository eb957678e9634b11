#include "quell/adapters/templates/mustache_renderer.h"

#include <gtest/gtest.h>

#include "quell/adapters/templates/template_check.h"
#include "quell/core/delivery/message_limits.h"

namespace quell::templates {
namespace mustache_renderer_test {

core::OutboxRow Row(std::string transition, std::string channel = "ops") {
  core::OutboxRow row;
  row.channel = std::move(channel);
  row.payload = SamplePayload(transition);
  return row;
}

RendererOptions Options() {
  RendererOptions options;
  options.view.link_base_url = "https://quell.example.com/incidents/";
  options.view.condition_severity = {{"new_errors", "critical"}};
  return options;
}

TEST(MustacheRendererTest, EmailHasASubjectLineAndAPlainBodyWithTheViewsFields) {
  const MustacheRenderer renderer(Options());
  const auto m = renderer.Render("email", Row("open"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->severity, "critical");
  EXPECT_EQ(
      m->subject,
      "[critical] new_errors opened: checkout/TypeError: cannot read properties of undefined");
  EXPECT_NE(m->body.find("Events:     42\n"), std::string::npos) << m->body;
  EXPECT_NE(m->body.find("First seen: 2026-12-02T08:58:10Z"), std::string::npos);
  EXPECT_NE(m->body.find("Details:    https://quell.example.com/incidents/"
                         "checkout%2FTypeError%3A%20cannot"),
            std::string::npos)
      << m->body;
  EXPECT_EQ(m->body.find("Resolved:"), std::string::npos);
  // The newest example first, and plain text is never HTML-escaped.
  const size_t newest = m->body.find("  - TypeError <in> & out\n");
  const size_t older = m->body.find("  - TypeError: cannot read");
  ASSERT_NE(newest, std::string::npos) << m->body;
  EXPECT_LT(newest, older);
  EXPECT_EQ(m->body.find("&amp;"), std::string::npos);
  EXPECT_EQ(m->body.find("&lt;"), std::string::npos);
}

// An inhibitor held this incident's open back and has resolved: every channel's message reads
// as an open and names the incident that held it and for how long.
TEST(MustacheRendererTest, AnOpenHeldByAnInhibitorSaysWhichIncidentHeldItAndHowLong) {
  const MustacheRenderer renderer(Options());
  for (const char* type : {"email", "slack", "sms", "pagerduty", "webhook"}) {
    const auto m = renderer.Render(type, Row("held_open"));
    ASSERT_TRUE(m.ok()) << type << ": " << m.error().message;
    const std::string text = m->subject + "\n" + m->body;
    EXPECT_NE(text.find(" opened"), std::string::npos) << type << ": " << text;
    EXPECT_NE(text.find("eld behind "), std::string::npos) << type << ": " << text;
    EXPECT_NE(text.find("acme:provider-down"), std::string::npos) << type << ": " << text;
    EXPECT_NE(text.find("42m"), std::string::npos) << type << ": " << text;
    EXPECT_EQ(text.find("shadow"), std::string::npos) << type << ": " << text;
  }
  const auto email = renderer.Render("email", Row("held_open"));
  EXPECT_NE(email->body.find("Held:       behind acme:provider-down since 2026-12-02 09:00 UTC "
                             "(42m); sent now that it has resolved\n"),
            std::string::npos)
      << email->body;
  // A plain open says nothing of it.
  const auto plain = renderer.Render("email", Row("open"));
  EXPECT_EQ(plain->body.find("Held"), std::string::npos) << plain->body;
}

// A condition left shadow mode while this incident was open: every channel's message reads as
// an open, and says since when, for how long, and that it opened in shadow.
TEST(MustacheRendererTest, ALateOpenSaysItOpenedInShadowAndHowLongAgo) {
  const MustacheRenderer renderer(Options());
  for (const char* type : {"email", "slack", "sms", "pagerduty", "webhook"}) {
    const auto m = renderer.Render(type, Row("late_open"));
    ASSERT_TRUE(m.ok()) << type << ": " << m.error().message;
    const std::string text = m->subject + "\n" + m->body;
    EXPECT_NE(text.find(" opened"), std::string::npos) << type << ": " << text;
    EXPECT_EQ(text.find("still failing"), std::string::npos) << type << ": " << text;
    EXPECT_NE(text.find("2h 13m"), std::string::npos) << type << ": " << text;
    EXPECT_NE(text.find("shadow"), std::string::npos) << type << ": " << text;
  }
  const auto email = renderer.Render("email", Row("late_open"));
  EXPECT_NE(email->body.find("Open since: 2026-12-02 09:00 UTC (2h 13m; opened while the "
                             "condition was in shadow mode)\n"),
            std::string::npos)
      << email->body;
  // A plain open says nothing of it.
  const auto plain = renderer.Render("email", Row("open"));
  EXPECT_EQ(plain->body.find("Open since"), std::string::npos);
}

// An escalation tier's page goes out `after` past the open, from the open's snapshot (written at
// the open's poll): the time phrases count to when it is sent, not to that poll.
TEST(MustacheRendererTest, TimePhrasesCountToTheSendTime) {
  const MustacheRenderer renderer(Options());
  core::OutboxRow row = Row("open");
  const std::string polled = R"("last_seen_at":"2026-12-02T09:14:30Z")";
  row.payload.replace(row.payload.find(polled), polled.size(),
                      R"("last_seen_at":"2026-12-02T09:00:00Z")");
  const core::WallTime opened = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  const auto at_write = renderer.Render("email", row);
  ASSERT_TRUE(at_write.ok()) << at_write.error().message;
  EXPECT_NE(at_write->body.find("for 0s\n"), std::string::npos) << at_write->body;
  for (const char* type : {"email", "slack", "pagerduty", "webhook", "telegram"}) {
    const auto sent = renderer.RenderAt(type, row, opened + std::chrono::seconds(45));
    ASSERT_TRUE(sent.ok()) << type << ": " << sent.error().message;
    const std::string text = sent->subject + "\n" + sent->body;
    EXPECT_NE(text.find("45s"), std::string::npos) << type << ": " << text;
  }
  // A resolve's failure lasted until it resolved, whenever the message goes out.
  const auto resolve = renderer.RenderAt("email", Row("resolve"), opened + std::chrono::hours(5));
  ASSERT_TRUE(resolve.ok());
  EXPECT_NE(resolve->body.find("for 30m\n"), std::string::npos) << resolve->body;
  // A late open's "open for" is as long as it has been open when the message goes out.
  const auto late = renderer.RenderAt("email", Row("late_open"), opened + std::chrono::hours(3));
  ASSERT_TRUE(late.ok());
  EXPECT_NE(late->body.find("Open since: 2026-12-02 09:00 UTC (3h 0m;"), std::string::npos)
      << late->body;
}

TEST(MustacheRendererTest, HumanDurationsUseTheTwoLargestUnits) {
  EXPECT_EQ(HumanDuration(45), "45s");
  EXPECT_EQ(HumanDuration(13 * 60 + 5), "13m");
  EXPECT_EQ(HumanDuration(2 * 3600 + 13 * 60), "2h 13m");
  EXPECT_EQ(HumanDuration(3 * 86400 + 4 * 3600 + 59), "3d 4h");
}

TEST(MustacheRendererTest, AResolveSaysSoAndShowsWhen) {
  const MustacheRenderer renderer(Options());
  const auto m = renderer.Render("email", Row("resolve"));
  ASSERT_TRUE(m.ok());
  EXPECT_NE(m->subject.find(" resolved: "), std::string::npos);
  EXPECT_NE(m->body.find("Resolved:   2026-12-02T09:30:00Z"), std::string::npos) << m->body;
}

TEST(MustacheRendererTest, SlackGetsMrkdwnWithSlackEscaping) {
  const MustacheRenderer renderer(Options());
  const auto m = renderer.Render("slack", Row("open"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->body.rfind(":rotating_light: *new_errors* opened:", 0), 0U) << m->body;
  EXPECT_NE(m->body.find("> TypeError &lt;in&gt; &amp; out\n"), std::string::npos) << m->body;
  EXPECT_NE(m->body.find("<https://quell.example.com/incidents/checkout%2F"), std::string::npos);
  const auto resolved = renderer.Render("slack", Row("resolve"));
  EXPECT_EQ(resolved->body.rfind(":white_check_mark:", 0), 0U);
}

// Google Chat, ntfy and Telegram: each has default templates, plain text (no
// Slack escaping), a one-line subject, and the link where the reader can follow it.
TEST(MustacheRendererTest, GoogleChatNtfyAndTelegramGetTheirDefaultsUnescaped) {
  const MustacheRenderer renderer(Options());
  for (const char* type : {"google_chat", "ntfy", "telegram"}) {
    const auto m = renderer.Render(type, Row("open"));
    ASSERT_TRUE(m.ok()) << type << ": " << m.error().message;
    EXPECT_EQ(m->subject.find('\n'), std::string::npos) << type;
    EXPECT_NE(m->subject.find("new_errors opened"), std::string::npos) << type << m->subject;
    EXPECT_EQ(m->severity, "critical") << type;
    EXPECT_NE(m->body.find("Next step:"), std::string::npos) << type << m->body;
    EXPECT_EQ(m->body.find("&lt;"), std::string::npos) << type << m->body;
  }
  const auto chat = renderer.Render("google_chat", Row("open"));
  EXPECT_EQ(chat->body.rfind("\U0001F6A8 new_errors opened: `checkout/", 0), 0U) << chat->body;
  EXPECT_NE(chat->body.find("> TypeError <in> & out\n"), std::string::npos) << chat->body;
  EXPECT_NE(chat->body.find("<https://quell.example.com/incidents/checkout%2F"), std::string::npos);
  EXPECT_EQ(renderer.Render("google_chat", Row("resolve"))->body.rfind("\u2705", 0), 0U);
  const auto tg = renderer.Render("telegram", Row("resolve"));
  EXPECT_NE(tg->body.find("resolved 2026-12-02T09:30:00Z"), std::string::npos) << tg->body;
  EXPECT_NE(tg->body.find("\nhttps://quell.example.com/incidents/checkout%2F"), std::string::npos);
  EXPECT_EQ(renderer.Render("ntfy", Row("open"))->body.rfind("TypeError", 0), 0U);
}

TEST(MustacheRendererTest, SmsIsShortGsm7AndCutToTheSegmentLimit) {
  RendererOptions options = Options();
  const MustacheRenderer renderer(options);
  const auto m = renderer.Render("sms", Row("open"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->body.rfind("CRITICAL new_errors opened: checkout/", 0), 0U) << m->body;
  EXPECT_EQ(core::CountSms(m->body).encoding, core::SmsEncoding::kGsm7);
  EXPECT_LE(core::CountSms(m->body).segments, 2U);

  options.sms_max_segments = 1;
  options.channels["pager-sms"] = {"sms", "", "{{key}} {{key}} {{key}} {{key}} {{key}}"};
  const MustacheRenderer one(options);
  const auto cut = one.Render("sms", Row("open", "pager-sms"));
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(core::CountSms(cut->body).segments, 1U);
  EXPECT_EQ(cut->body.substr(cut->body.size() - 3), "...");
}

TEST(MustacheRendererTest, PagerDutySummaryIsOneLineWithinTheLimit) {
  RendererOptions options = Options();
  std::string long_subject;
  for (int i = 0; i < 300; ++i) long_subject += "{{condition}}\n";
  options.channels["pd"] = {"pagerduty", long_subject, ""};
  const MustacheRenderer renderer(options);
  const auto m = renderer.Render("pagerduty", Row("renotify", "pd"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->subject.find('\n'), std::string::npos);
  EXPECT_EQ(m->subject.size(), 1023U + 3U);                 // 1023 ASCII characters and "…"
  EXPECT_NE(m->body.find("42 events"), std::string::npos);  // the default body stays
}

TEST(MustacheRendererTest, EmailSubjectIsCutTo200Characters) {
  RendererOptions options = Options();
  options.channels["mail"] = {"email", "{{key}} {{key}} {{key}} {{key}} {{key}}", ""};
  const MustacheRenderer renderer(options);
  const auto m = renderer.Render("email", Row("open", "mail"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->subject.size(), 199U + 3U);
}

TEST(MustacheRendererTest, OverridesApplyByChannelNameOnly) {
  RendererOptions options = Options();
  options.channels["team-hook"] = {"webhook", "", "custom {{status}} {{event_count}}"};
  const MustacheRenderer renderer(options);
  EXPECT_EQ(renderer.Render("webhook", Row("open", "team-hook"))->body, "custom open 42");
  EXPECT_NE(renderer.Render("webhook", Row("open", "other-hook"))->body, "custom open 42");
}

TEST(MustacheRendererTest, RejectsUnknownTypesAndPayloadsThatAreNoSnapshot) {
  const MustacheRenderer renderer(Options());
  EXPECT_FALSE(renderer.Render("carrier-pigeon", Row("open")).ok());
  core::OutboxRow row = Row("open");
  row.payload = "[1,2]";
  const auto bad = renderer.Render("email", row);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, core::ErrorCode::kInvalidArgument);
}

TEST(MustacheRendererTest, SeverityFallsBackToTheDefault) {
  RendererOptions options = Options();
  options.view.condition_severity.clear();
  EXPECT_EQ(MustacheRenderer(options).Render("email", Row("open"))->severity, "error");
}

TEST(TemplateCheckTest, AcceptsTheDefaultsAndNamesWhatIsWrong) {
  EXPECT_TRUE(CheckTemplates(Options()).ok());
  EXPECT_TRUE(CheckTemplateSyntax("{{#examples}}{{.}} {{text}}{{/examples}}{{! note }}").ok());

  const auto unknown = CheckTemplateSyntax("ok\n{{keyy}}");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "line 2: unknown field \"keyy\"");
  EXPECT_FALSE(CheckTemplateSyntax("{{#examples}}x").ok());
  EXPECT_FALSE(CheckTemplateSyntax("{{#examples}}{{/link}}").ok());
  EXPECT_FALSE(CheckTemplateSyntax("{{key").ok());
  EXPECT_FALSE(CheckTemplateSyntax("{{> header}}").ok());

  RendererOptions options = Options();
  options.channels["ops-sms"] = {"sms", "", "{{severity}} {{kee}}"};
  const auto bad = CheckTemplates(options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "channel \"ops-sms\" body template: line 1: unknown field \"kee\"");
  options.channels["ops-sms"] = {"fax", "", ""};
  EXPECT_FALSE(CheckTemplates(options).ok());
}

}  // namespace mustache_renderer_test
}  // namespace quell::templates
