// The hand-written listing page must be byte for byte what nlohmann's dump() of GroupToJson
// gives, so clients cannot tell the fast path from the tree.
#include "quell/sim/group_page.h"

#include <gtest/gtest.h>

#include <chrono>

#include "quell/sim/group_json.h"

namespace quell::sim {
namespace {

using nlohmann::json;

core::WallTime At(int64_t seconds) { return core::WallTime{} + std::chrono::seconds(seconds); }

Group Plain() {
  Group g;
  g.id = "grp_0001";
  g.title = "Checkout failed";
  g.message = "Checkout failed";
  g.count = 42;
  g.first_seen = At(1'790'000'000);
  g.last_seen = At(1'790'000'060);
  g.environment = "production";
  g.tags = {{"tenant", "acme"}, {"agent_stage", "model-answer"}};
  return g;
}

std::string Expected(const std::vector<const Group*>& groups, const json& cursor) {
  json list = json::array();
  for (const Group* g : groups) list.push_back(GroupToJson(*g));
  return json{{"groups", std::move(list)}, {"next_cursor", cursor}}.dump();
}

TEST(GroupPageTest, MatchesDumpForAnOrdinaryGroup) {
  const Group g = Plain();
  std::string out;
  ASSERT_TRUE(AppendGroupJson(out, g));
  EXPECT_EQ(out, GroupToJson(g).dump());
}

TEST(GroupPageTest, MatchesDumpForResolvedGroupsWithFingerprintAndOddText) {
  Group g = Plain();
  g.resolved = true;
  g.resolved_at = At(1'790'000'120);
  g.count = -1;
  g.fingerprint = {"a\"b", "c\\d", ""};
  g.title = std::string("ctl \x01\x1f\x7f tab\tnl\nbs\bff\fcr\r /slash", 31);
  g.message = "unicode: \xC3\xA9 \xE2\x80\xA8 \xF0\x9F\x98\x80 end";
  g.release = "v1.2.3";
  g.service = "checkout";
  g.tags = {{"quote\"key", "back\\slash"}, {"", ""}};
  std::string out;
  ASSERT_TRUE(AppendGroupJson(out, g));
  EXPECT_EQ(out, GroupToJson(g).dump());
}

TEST(GroupPageTest, EmptyGroupMatchesDump) {
  const Group g;
  std::string out;
  ASSERT_TRUE(AppendGroupJson(out, g));
  EXPECT_EQ(out, GroupToJson(g).dump());
}

TEST(GroupPageTest, PageMatchesDumpWithAndWithoutCursor) {
  const Group a = Plain();
  Group b = Plain();
  b.id = "grp_0002";
  b.resolved = true;
  b.resolved_at = At(1'790'000'500);
  const std::vector<const Group*> groups = {&a, &b};
  EXPECT_EQ(GroupPageJson(groups, "p2.o2").value(), Expected(groups, "p2.o2"));
  EXPECT_EQ(GroupPageJson(groups, std::nullopt).value(), Expected(groups, nullptr));
  EXPECT_EQ(GroupPageJson({}, std::nullopt).value(), Expected({}, nullptr));
}

TEST(GroupPageTest, InvalidUtf8FallsBackToTheTree) {
  Group g = Plain();
  g.tags["bad"] = "\xC3";  // a truncated sequence, which dump() refuses
  const std::vector<const Group*> groups = {&g};
  EXPECT_FALSE(GroupPageJson(groups, std::nullopt).has_value());
  EXPECT_THROW((void)GroupToJson(g).dump(), json::type_error);
}

}  // namespace
}  // namespace quell::sim
