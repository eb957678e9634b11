#include "quell/app/group_evidence.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace quell::app {
namespace {

core::ErrorGroup PlantedGroup() {
  core::ErrorGroup group;
  group.id = "grp_7";
  group.title = "Refund failed for jane.doe@example.com";
  group.message = "card 4111 1111 1111 1111 declined; call +1 (415) 555-0100";
  group.level = "error";
  group.count = 3;
  group.tags = {{"tenant", "acme"}, {"api_key", "ifr_pk_proj_9f8e7d6c5b4a39281706"}};
  return group;
}

TEST(GroupEvidenceTest, SummaryIsCompactAndCarriesNoPlantedSecret) {
  const std::string evidence = GroupEvidence(PlantedGroup(), nullptr, core::RedactOptions{});
  const auto json = nlohmann::json::parse(evidence);
  EXPECT_EQ(json["group"], "grp_7");
  EXPECT_EQ(json["count"], "3");
  EXPECT_EQ(json["tags"]["tenant"], "acme");
  for (const char* planted : {"jane.doe@example.com", "4111 1111 1111 1111", "555-0100",
                              "ifr_pk_proj_9f8e7d6c5b4a39281706"}) {
    EXPECT_EQ(evidence.find(planted), std::string::npos) << planted << " in " << evidence;
  }
}

TEST(GroupEvidenceTest, DetailAddsTheNewestEventRedactedAndCut) {
  core::GroupDetail detail;
  detail.group = PlantedGroup();
  std::string trace = "Traceback: Authorization: Bearer abcDEF123456ghiJKL789mnoPQR\n";
  for (int i = 0; i < 50; ++i) trace += "  at frame" + std::to_string(i) + " (src/app.js:10:5)\n";
  detail.events.push_back(core::GroupEvent{.event_id = "evt-42",
                                           .at = std::nullopt,
                                           .message = "timeout for ticket 4411",
                                           .exception = trace});
  const std::string evidence = GroupEvidence(detail.group, &detail, core::RedactOptions{});
  const auto json = nlohmann::json::parse(evidence);
  EXPECT_EQ(json["event_id"], "evt-42");
  EXPECT_EQ(json["message"], "timeout for ticket 4411");
  EXPECT_EQ(evidence.find("abcDEF123456ghiJKL789mnoPQR"), std::string::npos);
  EXPECT_EQ(evidence.find("frame40"), std::string::npos);  // long traces keep their top only
  EXPECT_LE(evidence.size(), 2048U);
}

}  // namespace
}  // namespace quell::app
