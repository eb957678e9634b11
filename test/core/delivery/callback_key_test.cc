#include "quell/core/delivery/callback_key.h"

#include <gtest/gtest.h>

#include "quell/core/delivery/grouping.h"
#include "quell/core/ports/outbox_row.h"

namespace quell::core {
namespace {

using Kind = CallbackKey::Kind;

TEST(CallbackKeyTest, AnIncidentKeyNamesItsGenerationAndMayHoldColons) {
  const auto key = ParseCallbackKey(IncidentCallbackKey("acme:db/primary", 12));
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->kind, Kind::kIncident);
  EXPECT_EQ(key->key, "acme:db/primary");
  EXPECT_EQ(key->generation, 12u);
}

TEST(CallbackKeyTest, AGroupAlertNamesItsChannelEpisodeAndGroup) {
  const std::string text = GroupAlertCallbackKey("pd main:2}", "tenant=a\\,b,condition=x", 7);
  EXPECT_EQ(text, "{group:pd%20main%3A2%7D:7}:tenant=a\\,b,condition=x");
  const auto key = ParseCallbackKey(text);
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->kind, Kind::kGroupAlert);
  EXPECT_EQ(key->channel, "pd main:2}");
  EXPECT_EQ(key->episode, 7u);
  EXPECT_EQ(key->group_key, "tenant=a\\,b,condition=x");
}

TEST(CallbackKeyTest, AGroupMessageIsItsRowsIdempotencyKey) {
  const OutboxRow row = MakeGroupRow("slack", "tenant=a", 3, TransitionKind::kOpen, 1, WallTime{});
  const auto key = ParseCallbackKey(row.idempotency_key);
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->kind, Kind::kGroupMessage);
  EXPECT_EQ(key->group_row, row.idempotency_key);
}

TEST(CallbackKeyTest, TheKeySentBeforeEpisodesIsALegacyGroup) {
  const auto key = ParseCallbackKey("{group}:condition=errs");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->kind, Kind::kLegacyGroup);
  EXPECT_EQ(key->group_key, "condition=errs");
}

TEST(CallbackKeyTest, AnythingElseIsNoneOfQuells) {
  for (const char* text :
       {"", "not-quells-alert", "acme:db:", ":5", "acme:db:x1", "acme:db:12345678901234567890",
        "{group:pd:0}:a=b", "{group:pd:x}:a=b", "{group::3}:a=b", "{group:pd:3", "{group:p%zz:3}:a",
        "{group:p d:3}:a", "q1-0123456789abcdef0123456789abcde"}) {
    EXPECT_FALSE(ParseCallbackKey(text).has_value()) << text;
  }
}

}  // namespace
}  // namespace quell::core
