#include "quell/adapters/jsonl/decision_line.h"

#include <gtest/gtest.h>

#include "quell/core/text/json_escape.h"

namespace quell::jsonl {
namespace {

TEST(JsonTextTest, EscapesQuotesBackslashesAndControls) {
  std::string out;
  core::AppendJsonString(out, "a\"b\\c\n\t\x01/\xC3\xBC");
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\t\\u0001/\xC3\xBC\"");
}

TEST(DecisionLineTest, WritesTheContractLine) {
  core::Observation observation{"t:\"s\":g",
                                *core::ParseRfc3339("2026-12-02T09:00:00Z"),
                                core::Health::kUnhealthy,
                                "",
                                "",
                                {},
                                {},
                                {},
                                false,
                                std::nullopt};
  core::Decision decision;
  decision.kind = core::DecisionKind::kNotify;
  decision.reason = core::Reason::kOpen;
  decision.generation = 1;
  decision.version = 1;
  std::string out;
  AppendDecisionLine(out, observation, decision);
  EXPECT_EQ(out,
            R"({"at":"2026-12-02T09:00:00Z","key":"t:\"s\":g","decision":"notify","reason":"open",)"
            R"("generation":1,"version":1})"
            "\n");
}

TEST(DecisionLineTest, OmitsAnEmptyReason) {
  core::Observation observation{"k",
                                *core::ParseRfc3339("2026-12-02T09:01:00Z"),
                                core::Health::kUnhealthy,
                                "",
                                "",
                                {},
                                {},
                                {},
                                false,
                                std::nullopt};
  core::Decision decision;
  decision.kind = core::DecisionKind::kUpdateOnly;
  decision.generation = 1;
  decision.version = 2;
  std::string out;
  AppendDecisionLine(out, observation, decision);
  EXPECT_EQ(out,
            R"({"at":"2026-12-02T09:01:00Z","key":"k","decision":"update_only","generation":1,)"
            R"("version":2})"
            "\n");
}

}  // namespace
}  // namespace quell::jsonl
