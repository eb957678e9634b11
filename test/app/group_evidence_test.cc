#include "quell/app/group_evidence.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

// Equal fingerprints must mean equal evidence: every field GroupEvidence reads without a detail
// moves the fingerprint; what it does not read leaves it alone.
TEST(GroupEvidenceTest, TheFingerprintFollowsEveryFieldTheSummaryReads) {
  const uint64_t salt = EvidenceRulesSalt(core::RedactOptions{});
  core::ErrorGroup base = PlantedGroup();
  base.last_seen = core::ParseRfc3339("2026-12-02T09:00:00Z").value();
  base.fields = {{"culprit", "app.refund"}, {"permalink", "https://t.example/1"}};
  const uint64_t fingerprint = GroupEvidenceFingerprint(base, salt);
  EXPECT_EQ(GroupEvidenceFingerprint(base, salt), fingerprint);

  const std::vector<std::function<void(core::ErrorGroup&)>> changes = {
      [](core::ErrorGroup& g) { g.id += "x"; },
      [](core::ErrorGroup& g) { g.title += "x"; },
      [](core::ErrorGroup& g) { g.message += "x"; },
      [](core::ErrorGroup& g) { g.level = "warning"; },
      [](core::ErrorGroup& g) { ++g.count; },
      [](core::ErrorGroup& g) { g.resolved = true; },
      [](core::ErrorGroup& g) { *g.last_seen += std::chrono::seconds(1); },
      [](core::ErrorGroup& g) { g.last_seen.reset(); },
      [](core::ErrorGroup& g) { g.fields[0].second += "x"; },
      [](core::ErrorGroup& g) { g.fields.erase(g.fields.begin() + 1); },
      [](core::ErrorGroup& g) { g.tags[0].second += "x"; },
      [](core::ErrorGroup& g) { g.tags.emplace_back("env", "prod"); },
      // The same characters split otherwise between two fields.
      [](core::ErrorGroup& g) {
        g.message = g.title.substr(g.title.size() - 1) + g.message;
        g.title.pop_back();
      },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    core::ErrorGroup changed = base;
    changes[i](changed);
    EXPECT_NE(GroupEvidenceFingerprint(changed, salt), fingerprint) << "change " << i;
  }
  core::ErrorGroup unread = base;
  unread.first_seen = base.last_seen;
  unread.fields.emplace_back("platform", "python");
  EXPECT_EQ(GroupEvidenceFingerprint(unread, salt), fingerprint);
  // The kept part builds the same evidence under the same fingerprint.
  const core::ErrorGroup kept = GroupEvidenceSource(unread);
  EXPECT_EQ(GroupEvidenceFingerprint(kept, salt), fingerprint);
  EXPECT_EQ(GroupEvidence(kept, nullptr, core::RedactOptions{}),
            GroupEvidence(unread, nullptr, core::RedactOptions{}));
}

TEST(GroupEvidenceTest, OtherOptionsGiveOtherFingerprints) {
  core::RedactOptions shorter;
  shorter.max_text = 100;
  core::RedactOptions prefixed;
  prefixed.extra_secret_prefixes = {"acme_"};
  core::EvidenceOptions fewer_lines;
  fewer_lines.max_lines = 3;
  const uint64_t salt = EvidenceRulesSalt(core::RedactOptions{});
  EXPECT_EQ(EvidenceRulesSalt(core::RedactOptions{}), salt);
  EXPECT_NE(EvidenceRulesSalt(shorter), salt);
  EXPECT_NE(EvidenceRulesSalt(prefixed), salt);
  EXPECT_NE(EvidenceRulesSalt(core::RedactOptions{}, fewer_lines), salt);
  EXPECT_NE(GroupEvidenceFingerprint(PlantedGroup(), salt),
            GroupEvidenceFingerprint(PlantedGroup(), EvidenceRulesSalt(shorter)));
}

}  // namespace
}  // namespace quell::app
