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

}  // namespace
}  // namespace quell::jsonl
