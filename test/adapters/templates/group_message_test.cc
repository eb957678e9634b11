// Group messages (one row for several incidents' transitions) as each channel type renders
// them: the members listed up to the channel's limit, the counts always whole, the provider's
// text limits kept. Payloads built by hand as the dispatcher hands them over.
#include "quell/adapters/templates/group_message.h"

#include <gtest/gtest.h>

#include <string>

#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/core/delivery/message_limits.h"

namespace quell::templates {
namespace group_message_test {

std::string Member(int n, const std::string& transition) {
  const std::string tenant = "t" + std::to_string(n);
  const bool resolved = transition == "resolve";
  std::string m = R"({"key":")" + tenant + R"(/model-answer/TimeoutError","condition":)" +
                  R"("model-answer","generation":1,"version":2,"transition":")" + transition +
                  R"(","status":")" + (resolved ? "resolved" : "open") +
                  R"(","opened_at":"2026-12-02T09:00:00Z","first_seen_at":"2026-12-02T08:59:00Z",)"
                  R"("last_seen_at":"2026-12-02T09:05:00Z")";
  if (resolved) m += R"(,"resolved_at":"2026-12-02T09:40:00Z")";
  m += R"(,"event_count":1,"evidence":[{"title":"TimeoutError: upstream timed out",)"
       R"("level":"fatal","count":"7","last_seen":"2026-12-02T09:04:00Z","message":"call )" +
       tenant + R"( took 30s"}],"labels":{"condition":"model-answer","tenant":")" + tenant +
       R"("},"upstream_count":7,"upstream_count_since_last_message":7})";
  return m;
}

// `opened` members opened, then `resolved` resolved; `open_after` still open after it.
std::string GroupPayload(int opened, int resolved, int open_after) {
  std::string members;
  for (int i = 0; i < opened + resolved; ++i) {
    if (i > 0) members += ",";
    members += Member(i + 1, i < opened ? "open" : "resolve");
  }
  return R"({"group":{"key":"condition=model-answer","channel":"ops","sequence":3,)"
         R"("labels":{"condition":"model-answer"},"counts":{"members":)" +
         std::to_string(opened + resolved) + R"(,"open":)" + std::to_string(opened) +
         R"(,"renotify":0,"resolve":)" + std::to_string(resolved) + R"(},"open_after":)" +
         std::to_string(open_after) + R"(,"members":[)" + members + "]}}";
}

core::OutboxRow Row(std::string payload, std::string channel = "ops") {
  core::OutboxRow row;
  row.key = "{group}:condition=model-answer";
  row.kind = core::OutboxRowKind::kGroup;
  row.channel = std::move(channel);
  row.payload = std::move(payload);
  return row;
}

RendererOptions Options() {
  RendererOptions options;
  options.view.public_url = "https://quell.example.com";
  return options;
}

TEST(GroupMessageTest, EmailListsEveryMemberUpToItsLimitWithWholeCounts) {
  const MustacheRenderer renderer(Options());
  const auto m = renderer.Render("email", Row(GroupPayload(2, 1, 2)));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->subject,
            "[fatal] condition=model-answer: 2 opened, 1 resolved; 2 still open: TimeoutError: "
            "upstream timed out");
  EXPECT_EQ(m->severity, "fatal");
  EXPECT_NE(m->body.find("What:      TimeoutError: upstream timed out\n"), std::string::npos);
  EXPECT_NE(m->body.find("Where:     condition model-answer\n"), std::string::npos) << m->body;
  EXPECT_NE(m->body.find("  - opened t1/model-answer/TimeoutError: TimeoutError: upstream timed "
                         "out (tenant t1, condition model-answer); 7 errors upstream; since "
                         "2026-12-02 09:00 UTC\n"),
            std::string::npos)
      << m->body;
  EXPECT_NE(m->body.find("  - resolved t3/model-answer/TimeoutError: "), std::string::npos);
  EXPECT_NE(m->body.find("Next step: ack each key with `quell incidents ack KEY`"),
            std::string::npos)
      << m->body;
  EXPECT_NE(m->body.find("POST https://quell.example.com/v1/incidents/KEY/ack"), std::string::npos);
  // Three distinct examples, not one line three times.
  EXPECT_NE(m->body.find("  - TimeoutError: upstream timed out - call t1 took 30s\n"),
            std::string::npos);
  EXPECT_NE(m->body.find("  - TimeoutError: upstream timed out - call t3 took 30s\n"),
            std::string::npos);

  const auto big = renderer.Render("email", Row(GroupPayload(150, 50, 150)));
  EXPECT_NE(big->subject.find("150 opened, 50 resolved; 150 still open"), std::string::npos);
  EXPECT_NE(big->body.find("  - opened t50/"), std::string::npos);
  EXPECT_EQ(big->body.find("  - opened t51/"), std::string::npos);
  EXPECT_NE(big->body.find("  \xE2\x80\xA6 and 150 more\n"), std::string::npos) << big->body;
}

TEST(GroupMessageTest, AllResolvedSaysResolvedAndNeedsNoAction) {
  const MustacheRenderer renderer(Options());
  const auto m = renderer.Render("email", Row(GroupPayload(0, 3, 0)));
  EXPECT_EQ(m->subject.rfind("[resolved] condition=model-answer: 3 resolved; all resolved", 0), 0U)
      << m->subject;
  EXPECT_NE(m->body.find("Next step: none: every member recovered"), std::string::npos);
  EXPECT_NE(m->body.find("(3 members in this message)"), std::string::npos) << m->body;

  const auto one = renderer.Render("email", Row(GroupPayload(0, 1, 0)));
  EXPECT_NE(one->body.find("Changed:   1 resolved; all resolved (1 member in this message)\n"),
            std::string::npos)
      << one->body;
}

// The payload's standing (the store's counts at send time) is what the text says: members
// under a silence are counted as silenced, not as still open, and a group whose members all
// resolved says so even when its message was built while some were open.
std::string WithStanding(std::string payload, int open, int silenced) {
  const std::string at = R"(,"members":[)";
  payload.insert(payload.find(at), R"(,"standing":{"open":)" + std::to_string(open) +
                                       R"(,"silenced":)" + std::to_string(silenced) + "}");
  return payload;
}

TEST(GroupMessageTest, SilencedMembersAreCountedAsSilencedNotStillOpen) {
  const MustacheRenderer renderer(Options());
  // Built when 30 members were still open; at send time a silence covers all 30.
  const auto m = renderer.Render("email", Row(WithStanding(GroupPayload(0, 2, 30), 0, 30)));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->subject.rfind("[fatal] condition=model-answer: 2 resolved; 30 silenced:", 0), 0U)
      << m->subject;
  EXPECT_NE(m->body.find("Next step: none while their silence lasts"), std::string::npos)
      << m->body;

  const auto mixed = renderer.Render("sms", Row(WithStanding(GroupPayload(0, 2, 30), 1, 29)));
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(mixed->body.rfind("FATAL condition=model-answer: 2 resolved; 1 still open, 29 "
                              "silenced",
                              0),
            0U)
      << mixed->body;

  // Every member resolved by send time: the store's word wins over the built count.
  const auto done = renderer.Render("slack", Row(WithStanding(GroupPayload(0, 2, 30), 0, 0)));
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->body.rfind(":white_check_mark: *condition=model-answer*: 2 resolved; all "
                             "resolved",
                             0),
            0U)
      << done->body;
}

TEST(GroupMessageTest, TwoHundredMembersFitTheSmsSegments) {
  RendererOptions options = Options();
  options.sms_max_segments = 2;
  const MustacheRenderer renderer(options);
  const auto m = renderer.Render("sms", Row(GroupPayload(200, 0, 200)));
  ASSERT_TRUE(m.ok());
  EXPECT_LE(core::CountSms(m->body).segments, 2U) << m->body;
  EXPECT_EQ(core::CountSms(m->body).encoding, core::SmsEncoding::kGsm7) << m->body;
  EXPECT_EQ(m->body.rfind("FATAL condition=model-answer: 200 opened; 200 still open", 0), 0U)
      << m->body;
  EXPECT_NE(m->body.find("opened t3/model-answer/TimeoutError ... and 197 more"), std::string::npos)
      << m->body;
}

TEST(GroupMessageTest, PagerDutySummaryIsOneLineWithinItsLimit) {
  RendererOptions options = Options();
  options.group_limits["pd"] = 200;  // a limit far too large still keeps the summary short
  const MustacheRenderer renderer(options);
  const auto m = renderer.Render("pagerduty", Row(GroupPayload(200, 0, 200), "pd"));
  ASSERT_TRUE(m.ok());
  EXPECT_LE(m->subject.size(), core::kPagerDutySummaryMaxChars + 2);  // the "…" is 3 bytes
  EXPECT_EQ(m->subject.find('\n'), std::string::npos);
  const auto short_one =
      MustacheRenderer(Options()).Render("pagerduty", Row(GroupPayload(200, 0, 200)));
  EXPECT_NE(short_one->subject.find("t5/model-answer/TimeoutError \xE2\x80\xA6 and 195 more"),
            std::string::npos)
      << short_one->subject;
}

TEST(GroupMessageTest, SlackListsMembersWithSlackEscaping) {
  const MustacheRenderer renderer(Options());
  const auto m = renderer.Render("slack", Row(GroupPayload(200, 0, 200)));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->body.rfind(":rotating_light: *condition=model-answer*: 200 opened", 0), 0U)
      << m->body;
  EXPECT_NE(m->body.find("\xE2\x80\xA2 *opened* `t20/model-answer/TimeoutError`"),
            std::string::npos);
  EXPECT_EQ(m->body.find("`t21/"), std::string::npos);
  EXPECT_NE(m->body.find("_\xE2\x80\xA6 and 180 more_"), std::string::npos);
  // The group's own page, not the JSON list (which answers 401 to a browser).
  EXPECT_NE(m->body.find("<https://quell.example.com/groups/ops/condition%3Dmodel-answer|Open in "
                         "quell>"),
            std::string::npos)
      << m->body;
}

TEST(GroupMessageTest, AChannelsGroupLimitOverridesItsTypesDefault) {
  RendererOptions options = Options();
  options.group_limits["ops"] = 2;
  const auto m = MustacheRenderer(options).Render("webhook", Row(GroupPayload(5, 0, 5)));
  EXPECT_NE(m->body.find("opened t2/"), std::string::npos);
  EXPECT_EQ(m->body.find("opened t3/"), std::string::npos);
  EXPECT_NE(m->body.find("and 3 more"), std::string::npos);
  EXPECT_EQ(DefaultGroupLimit("sms"), 3U);
  EXPECT_EQ(DefaultGroupLimit("pagerduty"), 5U);
  EXPECT_EQ(DefaultGroupLimit("google_chat"), 20U);
  EXPECT_EQ(DefaultGroupLimit("ntfy"), 5U);
  EXPECT_EQ(DefaultGroupLimit("telegram"), 10U);
}

// Replayed observations often carry no evidence: the members then differ only by key, and the
// headline says what they share rather than "several failures".
TEST(GroupMessageTest, MembersWithoutATitleAreOneConditionFailingForNKeys) {
  std::string members;
  for (int i = 1; i <= 3; ++i) {
    if (i > 1) members += ",";
    members += R"({"key":"t)" + std::to_string(i) +
               R"(:model-answer","condition":"model-answer","generation":1,"version":1,)"
               R"("transition":"open","status":"open","event_count":1,"evidence":[],"labels":{}})";
  }
  const std::string payload =
      R"({"group":{"key":"condition=model-answer","channel":"ops","sequence":1,)"
      R"("labels":{"condition":"model-answer"},"counts":{"members":3,"open":3,"renotify":0,)"
      R"("resolve":0},"open_after":3,"members":[)" +
      members + "]}}";
  MustacheRenderer renderer(Options());
  const auto message = renderer.Render("email", Row(payload));
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_NE(message->subject.find("model-answer failing for 3 keys"), std::string::npos)
      << message->subject;
  EXPECT_EQ(message->subject.find("several failures"), std::string::npos) << message->subject;
}

// Keys are outsiders' text: a common prefix holding `*` would, as a glob, silence keys far
// beyond the group's, so the step offers the glob only for a prefix without `*`.
TEST(GroupMessageTest, TheSilenceStepGlobsTheCommonPrefixOnlyWhenItHoldsNoStar) {
  GroupView group;
  group.key = "condition=c";
  group.channel = "ops";
  group.members = 2;
  group.opened = 2;
  group.open_after = 2;
  group.listed.resize(2);
  group.listed[0].key = "*:*:db";
  group.listed[1].key = "*:*:web";
  for (IncidentView& v : group.listed) v.transition = "open";
  const std::string starred = RenderGroup("email", group, ViewOptions{}).body;
  EXPECT_EQ(starred.find("silence them all"), std::string::npos) << starred;
  EXPECT_NE(starred.find("silence one with `quell silence add --key KEY --for 1h"),
            std::string::npos)
      << starred;

  group.listed[0].key = "acme:db";
  group.listed[1].key = "acme:web";
  const std::string plain = RenderGroup("email", group, ViewOptions{}).body;
  EXPECT_NE(plain.find("silence them all with `quell silence add 'acme:*' --for 1h"),
            std::string::npos)
      << plain;
}

TEST(GroupMessageTest, RecognisesGroupPayloadsOnly) {
  EXPECT_TRUE(IsGroupPayload(R"({"group":{}})"));
  EXPECT_TRUE(IsGroupPayload(R"( { "group" : {}})"));
  EXPECT_FALSE(IsGroupPayload(R"({"key":"group"})"));
  EXPECT_FALSE(IsGroupPayload(""));
  const auto bad = MustacheRenderer(Options()).Render("email", Row(R"({"group":[1]})"));
  EXPECT_FALSE(bad.ok());
}

}  // namespace group_message_test
}  // namespace quell::templates
