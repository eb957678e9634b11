// Where messages put the signed ack link: the view's ack_link field, in every default template
// of an open or renotify, never on a resolve; in a group message one for the whole group.
#include <gtest/gtest.h>

#include <string>

#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/core/delivery/grouping.h"

namespace quell::templates {
namespace ack_link_message_test {

constexpr const char* kTypes[] = {"email", "slack", "sms", "pagerduty", "webhook"};

// A stand-in signer that shows what it was asked to sign.
RendererOptions Options() {
  RendererOptions options;
  options.view.public_url = "https://quell.example.com";
  options.view.ack_link = [](std::string_view key, uint64_t generation, core::WallTime issued) {
    return "https://quell.example.com/v1/ack/" + std::string(key) + "." +
           std::to_string(generation) + "." + core::FormatRfc3339(issued);
  };
  return options;
}

std::string Payload(const std::string& key, const std::string& transition) {
  const bool resolved = transition == "resolve";
  return R"({"key":")" + key +
         R"(","condition":"model-answer","generation":4,"version":2,)"
         R"("transition":")" +
         transition + R"(","status":")" + (resolved ? "resolved" : "open") +
         R"(","opened_at":"2026-12-02T09:00:00Z","last_seen_at":"2026-12-02T09:05:00Z",)"
         R"("event_count":1,"labels":{"tenant":"t1"}})";
}

core::OutboxRow Row(std::string key, std::string payload) {
  core::OutboxRow row;
  // As a store writes it: a group's row carries the group kind (the renderer reads the kind).
  row.kind = core::IsGroupKey(key) ? core::OutboxRowKind::kGroup : core::OutboxRowKind::kIncident;
  row.key = std::move(key);
  row.channel = "ops";
  row.payload = std::move(payload);
  return row;
}

constexpr const char* kLink = "https://quell.example.com/v1/ack/t1/db.4.2026-12-02T09:05:00Z";

TEST(AckLinkMessageTest, EveryDefaultTemplateOfAnOpenOrRenotifyCarriesTheLink) {
  const MustacheRenderer renderer(Options());
  for (const char* transition : {"open", "renotify"}) {
    for (const char* type : kTypes) {
      const auto m = renderer.Render(type, Row("t1/db", Payload("t1/db", transition)));
      ASSERT_TRUE(m.ok()) << m.error().message;
      EXPECT_NE((m->subject + m->body).find(kLink), std::string::npos)
          << type << " " << transition << "\n"
          << m->body;
    }
  }
  for (const char* type : kTypes) {
    const auto m = renderer.Render(type, Row("t1/db", Payload("t1/db", "resolve")));
    ASSERT_TRUE(m.ok());
    EXPECT_EQ((m->subject + m->body).find("/v1/ack/"), std::string::npos) << type << m->body;
  }
}

TEST(AckLinkMessageTest, WithoutASignerNoMessageCarriesALink) {
  RendererOptions options = Options();
  options.view.ack_link = nullptr;
  const MustacheRenderer renderer(options);
  for (const char* type : kTypes) {
    const auto m = renderer.Render(type, Row("t1/db", Payload("t1/db", "open")));
    ASSERT_TRUE(m.ok());
    EXPECT_EQ((m->subject + m->body).find("/v1/ack/"), std::string::npos) << type;
  }
}

std::string GroupPayload(const std::string& episode) {
  return R"({"group":{"key":"tenant=t1","channel":"ops","sequence":2,)" + episode +
         R"("labels":{"tenant":"t1"},)"
         R"("counts":{"members":3,"open":2,"renotify":0,"resolve":1},"open_after":2,)"
         R"("members":[)" +
         Payload("t1/a", "open") + "," + Payload("t1/b", "open") + "," +
         Payload("t1/c", "resolve") + "]}}";
}

// Issue 31: a 60-member group message carried 60 ack links. Now one link acks the group's
// episode: signed for the channel, the group and the episode, issued at the newest member's
// transition; no member has a link of its own.
TEST(AckLinkMessageTest, AGroupMessageHasOneLinkForTheWholeGroup) {
  RendererOptions options = Options();
  options.view.group_ack_link = [](std::string_view channel, std::string_view group_key,
                                   uint64_t episode, core::WallTime issued) {
    return "https://quell.example.com/v1/ack/g1." + std::string(channel) + "." +
           std::string(group_key) + "." + std::to_string(episode) + "." +
           core::FormatRfc3339(issued);
  };
  const MustacheRenderer renderer(options);
  const std::string group_link =
      "https://quell.example.com/v1/ack/g1.ops.tenant=t1.2.2026-12-02T09:05:00Z";
  for (const char* type : {"email", "slack", "pagerduty", "webhook"}) {
    const auto m = renderer.Render(type, Row("{group}:tenant=t1", GroupPayload(R"("episode":2,)")));
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_NE(m->body.find(group_link), std::string::npos) << type << m->body;
    EXPECT_EQ(m->body.find(group_link, m->body.find(group_link) + 1), std::string::npos)
        << type << ": one link\n"
        << m->body;
    EXPECT_EQ(m->body.find("/v1/ack/t1/"), std::string::npos) << type << m->body;
  }
  // All resolved: nothing to ack, no link.
  std::string resolved = GroupPayload(R"("episode":2,)");
  resolved.replace(resolved.find("\"open_after\":2"), 14, "\"open_after\":0");
  const auto none = renderer.Render("email", Row("{group}:tenant=t1", resolved));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->body.find("/v1/ack/"), std::string::npos) << none->body;
}

// A group whose episode began before episodes were kept (no "episode" in its payload) cannot be
// named by a group link: its listed open members keep a link each, as before.
TEST(AckLinkMessageTest, AGroupMessageWithoutAnEpisodeKeepsOneLinkPerListedOpenMember) {
  RendererOptions options = Options();
  options.view.group_ack_link = [](std::string_view, std::string_view, uint64_t, core::WallTime) {
    return std::string("https://quell.example.com/v1/ack/g1.group");
  };
  const MustacheRenderer renderer(options);
  for (const char* type : {"email", "slack"}) {
    const auto m = renderer.Render(type, Row("{group}:tenant=t1", GroupPayload("")));
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_NE(m->body.find("/v1/ack/t1/a.4."), std::string::npos) << type << m->body;
    EXPECT_NE(m->body.find("/v1/ack/t1/b.4."), std::string::npos) << type << m->body;
    EXPECT_EQ(m->body.find("/v1/ack/t1/c."), std::string::npos) << type << m->body;
    EXPECT_EQ(m->body.find("/v1/ack/g1."), std::string::npos) << type << m->body;
  }
}

}  // namespace ack_link_message_test
}  // namespace quell::templates
