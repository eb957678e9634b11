#include "quell/adapters/jsonl/message_lines.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "quell/core/delivery/grouping.h"

namespace quell::jsonl {
namespace {

using nlohmann::json;

const core::WallTime kAt = *core::ParseRfc3339("2026-12-01T09:00:30Z");

core::Delivery Delivery(std::string key, std::string payload) {
  core::Delivery d;
  d.row.idempotency_key = "q1-abc";
  // A group message's key starts "{group}:" and its row says so (core::MakeGroupRow does both).
  if (key.starts_with(core::kGroupKeyPrefix)) d.row.kind = core::OutboxRowKind::kGroup;
  d.row.key = std::move(key);
  d.row.channel = "ops";
  d.row.transition = core::TransitionKind::kRenotify;
  d.row.payload = std::move(payload);
  d.message.subject = "subject \"q\"";
  d.message.severity = "fatal";
  return d;
}

TEST(MessageLinesTest, ASingleTransitionIsItsOwnOnlyMember) {
  std::string out;
  AppendMessageLine(out, kAt, Delivery("t1:model-answer", "{}"));
  ASSERT_EQ(out.back(), '\n');
  const json line = json::parse(out);
  EXPECT_EQ(
      line,
      (json{{"at", "2026-12-01T09:00:30Z"},
            {"channel", "ops"},
            {"idempotency_key", "q1-abc"},
            {"members", json::array({{{"key", "t1:model-answer"}, {"transition", "renotify"}}})},
            {"key", "t1:model-answer"},
            {"transition", "renotify"},
            {"subject", "subject \"q\""},
            {"severity", "fatal"}}));
}

TEST(MessageLinesTest, AGroupListsTheMembersOfItsPayload) {
  const std::string payload =
      R"({"group":{"key":"condition=model-answer","channel":"ops","sequence":2,)"
      R"("labels":{"condition":"model-answer"},)"
      R"("counts":{"members":2,"open":1,"renotify":0,"resolve":1},"open_after":1,)"
      R"("members":[{"key":"t1:model-answer","transition":"open","labels":{}},)"
      R"({"key":"t2:model-answer","transition":"resolve"}]}})";
  std::string out;
  AppendMessageLine(out, kAt, Delivery("{group}:condition=model-answer", payload));
  const json line = json::parse(out);
  EXPECT_EQ(line["members"],
            (json::array({{{"key", "t1:model-answer"}, {"transition", "open"}},
                          {{"key", "t2:model-answer"}, {"transition", "resolve"}}})));
  EXPECT_EQ(line["group_key"], "condition=model-answer");
  EXPECT_EQ(line["counts"], (json{{"members", 2}, {"open", 1}, {"renotify", 0}, {"resolve", 1}}));
  EXPECT_EQ(line["open_after"], 1);
  EXPECT_FALSE(line.contains("key"));
  EXPECT_FALSE(line.contains("transition"));
  EXPECT_EQ(line["idempotency_key"], "q1-abc");
}

TEST(MessageLinesTest, AGroupRowWhosePayloadIsNotAGroupIsPrintedAsItsRow) {
  std::string out;
  AppendMessageLine(out, kAt, Delivery("{group}:x", R"({"group":{"members":7}})"));
  const json line = json::parse(out);
  EXPECT_EQ(line["key"], "{group}:x");
  EXPECT_EQ(line["members"].size(), 1u);
}

}  // namespace
}  // namespace quell::jsonl
