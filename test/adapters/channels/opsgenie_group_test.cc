// A group message and a single transition as the opsgenie channel encodes them, rendered by the
// real renderer with the default templates, checked against Opsgenie's documented limits
// (https://docs.opsgenie.com/docs/alert-api): message 130, description 15000 characters; one
// alert per group, closed by alias once none of it is open.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "quell/adapters/channels/opsgenie/opsgenie_channel.h"
#include "quell/adapters/templates/mustache_renderer.h"

namespace quell::channels {
namespace opsgenie_group_test {

using nlohmann::json;

core::WallTime Now() { return core::WallTime{std::chrono::seconds(1'796'000'000)}; }

std::string Member(int n) {
  const std::string tenant = "t" + std::to_string(n);
  return R"({"key":")" + tenant + R"(/model-answer/TimeoutError","condition":"model-answer",)" +
         R"("generation":1,"version":2,"transition":"open","status":"open",)"
         R"("opened_at":"2026-12-02T09:00:00Z","last_seen_at":"2026-12-02T09:05:00Z",)"
         R"("event_count":1,"evidence":[{"title":"TimeoutError <upstream> & co","level":"error",)"
         R"("message":"call )" +
         tenant + R"( took 30s"}],"labels":{"tenant":")" + tenant + R"("}})";
}

core::OutboxRow GroupRow(int members, int open_after) {
  std::string list;
  for (int i = 0; i < members; ++i) list += (i > 0 ? "," : "") + Member(i + 1);
  core::OutboxRow row;
  row.kind = core::OutboxRowKind::kGroup;
  row.key = "{group}:condition=model-answer";
  row.channel = "og";
  row.generation = 4;
  row.version = 1;
  row.transition = core::TransitionKind::kOpen;
  row.idempotency_key = core::OutboxIdempotencyKey(row.key, row.generation, 1, row.channel);
  row.payload = R"({"group":{"key":"condition=model-answer","channel":"og","sequence":4,)"
                R"("labels":{"condition":"model-answer"},"counts":{"members":)" +
                std::to_string(members) + R"(,"open":)" + std::to_string(members) +
                R"(,"renotify":0,"resolve":0},"open_after":)" + std::to_string(open_after) +
                R"(,"members":[)" + list + "]}}";
  return row;
}

core::Delivery Rendered(core::OutboxRow row) {
  templates::RendererOptions options;
  options.view.public_url = "https://quell.example.com";
  const templates::MustacheRenderer renderer(options);
  // The payload read as the dispatcher reads it, for the channel.
  core::Result<core::Message> content = renderer.Decode(row);
  EXPECT_TRUE(content.ok()) << content.error().message;
  if (!content.ok()) return core::Delivery{std::move(row), {}, "", {}};
  core::Result<core::RenderedMessage> message = renderer.Render("opsgenie", row);
  EXPECT_TRUE(message.ok()) << message.error().message;
  return core::Delivery{std::move(row), message.ok() ? *message : core::RenderedMessage{}, "",
                        std::move(*content)};
}

std::unique_ptr<OpsgenieChannel> Channel() {
  OpsgenieSettings settings;
  settings.api_key = "og-key-0000";
  auto channel = OpsgenieChannel::Create(settings);
  EXPECT_TRUE(channel.ok());
  return std::move(*channel);
}

size_t Chars(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

TEST(OpsgenieGroupTest, AGroupIsOneAlertListingTwentyMembersWithinTheLimits) {
  const auto channel = Channel();
  const auto open = channel->Encode(Rendered(GroupRow(200, 200)), Now());
  ASSERT_TRUE(open.ok()) << open.error().message;
  EXPECT_EQ(open->url, "https://api.opsgenie.com/v2/alerts");
  const json create = json::parse(open->body);
  EXPECT_EQ(create["alias"], "{group}:condition=model-answer");
  EXPECT_LE(Chars(create["message"]), 130U);
  const std::string description = create["description"];
  EXPECT_LE(Chars(description), 15000U);
  EXPECT_NE(description.find("t20/model-answer"), std::string::npos) << description;
  EXPECT_EQ(description.find("t21/model-answer"), std::string::npos) << description;
  EXPECT_NE(description.find("180 more"), std::string::npos) << description;
  EXPECT_EQ(create["details"]["quell_kind"], "group");
  EXPECT_EQ(create["details"]["count_members"], "200");
  EXPECT_EQ(create["priority"], "P2");

  core::OutboxRow last = GroupRow(3, 0);
  last.generation = 5;
  last.transition = core::TransitionKind::kResolve;
  const auto close = channel->Encode(Rendered(last), Now());
  ASSERT_TRUE(close.ok());
  EXPECT_EQ(close->url,
            "https://api.opsgenie.com/v2/alerts/"
            "%7Bgroup%7D%3Acondition%3Dmodel-answer/close?identifierType=alias");
  // A later message while members still fail creates again: it counts on the same alert.
  core::OutboxRow still = GroupRow(3, 1);
  still.transition = core::TransitionKind::kResolve;
  EXPECT_EQ(channel->Encode(Rendered(still), Now())->url, "https://api.opsgenie.com/v2/alerts");
}

TEST(OpsgenieGroupTest, ASingleTransitionWithTheDefaultTemplatesFitsOpsgenie) {
  core::OutboxRow row = GroupRow(1, 1);
  row.kind = core::OutboxRowKind::kIncident;  // one incident's row, not a group's
  row.kind = core::OutboxRowKind::kIncident;  // one incident\'s row, not a group\'s
  row.key = "t1/model-answer/" + std::string(300, 'x');
  row.payload = Member(1);
  row.payload.replace(row.payload.find("t1/model-answer/TimeoutError"), 28, row.key);
  const core::Delivery delivery = Rendered(row);
  const auto request = Channel()->Encode(delivery, Now());
  ASSERT_TRUE(request.ok());
  const json create = json::parse(request->body);
  EXPECT_LE(Chars(create["message"]), 130U);
  EXPECT_TRUE(create["message"].get<std::string>().starts_with("[error] model-answer opened"))
      << create["message"];
  EXPECT_EQ(create["alias"], row.key + ":4");
  EXPECT_NE(create["description"].get<std::string>().find("TimeoutError <upstream> & co"),
            std::string::npos);
  EXPECT_EQ(create["details"]["tenant"], "t1");
  EXPECT_EQ(create["tags"], json({"quell", "error", "model-answer"}));
  const auto header = core::FindHeader(request->headers, "Authorization");
  EXPECT_EQ(header, "GenieKey og-key-0000");
}

}  // namespace opsgenie_group_test
}  // namespace quell::channels
