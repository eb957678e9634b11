#include "quell/adapters/jsonl/payload_encoder.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace quell::jsonl {
namespace {

TEST(JsonPayloadEncoderTest, RendersTheSnapshotAsValidJson) {
  core::Incident in;
  in.key = "k\"ey\n";
  in.condition = "errors";
  in.generation = 2;
  in.version = 9;
  in.status = core::IncidentStatus::kResolved;
  in.opened_at = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  in.resolved_at = *core::ParseRfc3339("2026-12-02T09:30:00Z");
  in.event_count = 4;
  in.recent_evidence = {R"({"msg":"x"})", "[1]"};
  std::string out = "stale";
  JsonPayloadEncoder().Encode(in, core::TransitionKind::kResolve, out);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["key"], "k\"ey\n");
  EXPECT_EQ(j["transition"], "resolve");
  EXPECT_EQ(j["status"], "resolved");
  EXPECT_EQ(j["generation"], 2);
  EXPECT_EQ(j["version"], 9);
  EXPECT_EQ(j["resolved_at"], "2026-12-02T09:30:00Z");
  EXPECT_FALSE(j.contains("first_seen_at")) << "absent times are left out";
  EXPECT_EQ(j["evidence"][0]["msg"], "x");
  EXPECT_EQ(j["evidence"].size(), 2u);
}

TEST(JsonPayloadEncoderTest, CarriesLabelsAndTheUpstreamCounts) {
  core::Incident in;
  in.key = "t1:model-answer";
  in.labels = {{"stage", "an\"swer"}, {"tenant", "t1"}};
  in.upstream_count = 12;
  in.upstream_count_since_previous_message = 4;
  std::string out;
  JsonPayloadEncoder().Encode(in, core::TransitionKind::kRenotify, out);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["labels"], (nlohmann::json{{"stage", "an\"swer"}, {"tenant", "t1"}}));
  EXPECT_EQ(j["upstream_count"], 12);
  EXPECT_EQ(j["upstream_count_since_last_message"], 4);

  // No labels: an empty object; no count from the source: the counts are left out.
  core::Incident bare;
  bare.key = "k";
  JsonPayloadEncoder().Encode(bare, core::TransitionKind::kOpen, out);
  j = nlohmann::json::parse(out);
  EXPECT_EQ(j["labels"], nlohmann::json::object());
  EXPECT_FALSE(j.contains("upstream_count"));
  EXPECT_FALSE(j.contains("upstream_count_since_last_message"));
}

}  // namespace
}  // namespace quell::jsonl
