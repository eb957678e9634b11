#include "quell/core/text/closest_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace quell::core {
namespace {

const std::vector<std::string> kCommands = {"replay",    "apply",  "incidents", "outbox",
                                            "poll-once", "schema", "dispatch",  "demo",
                                            "run",       "config", "silence",   "status"};

TEST(ClosestNameTest, SwappedNeighboursCountAsOneSlip) {
  EXPECT_EQ(ClosestName("incidnets", kCommands), "incidents");
  EXPECT_EQ(ClosestName("outbxo", kCommands), "outbox");
}

TEST(ClosestNameTest, AMissingOrExtraLetterIsNear) {
  EXPECT_EQ(ClosestName("incident", kCommands), "incidents");
  EXPECT_EQ(ClosestName("dispatchh", kCommands), "dispatch");
  EXPECT_EQ(ClosestName("silense", kCommands), "silence");
}

TEST(ClosestNameTest, AShortWordGetsOneSlipOnly) {
  EXPECT_EQ(ClosestName("rum", kCommands), "run");
  EXPECT_EQ(ClosestName("xyz", kCommands), std::nullopt);
}

TEST(ClosestNameTest, TheOnlyNameAWordBeginsIsMeant) {
  EXPECT_EQ(ClosestName("inci", kCommands), "incidents");
  EXPECT_EQ(ClosestName("sh", std::vector<std::string>{"show", "list"}), "show");
  // "s" begins schema, silence and status.
  EXPECT_EQ(ClosestName("s", kCommands), std::nullopt);
}

TEST(ClosestNameTest, NothingNearOrATieGivesNoGuess) {
  EXPECT_EQ(ClosestName("frobnicate", kCommands), std::nullopt);
  EXPECT_EQ(ClosestName("lisx", std::vector<std::string>{"list", "lisy"}), std::nullopt);
}

}  // namespace
}  // namespace quell::core
