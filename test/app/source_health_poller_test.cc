// The poller feeding each source's own incident (app/source_health_apply, core/conditions/
// source_health): a source failing N polls in a row opens "source:<name>", one success resolves
// it, a push condition whose keys all went stale opens "source:push/<condition>"; never grouped,
// written under the lease of the source's first watch.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "fake_incident_store.h"
#include "manual_clock.h"
#include "quell/app/poller.h"

namespace quell::app {
namespace {

using std::chrono::minutes;

class StubEncoder : public core::PayloadEncoder {
 public:
  void Encode(const core::Incident& incident, core::TransitionKind,
              std::string& out) const override {
    out = incident.key;
  }
};

class ScriptedSource : public core::ErrorGroupSource {
 public:
  core::GroupListing listing;
  core::GroupListing List() override { return listing; }
  core::Result<core::GroupDetail> Detail(std::string_view id) override {
    core::GroupDetail detail;
    detail.group.id = std::string(id);
    return detail;
  }
};

class Sink : public DecisionSink {
 public:
  std::vector<std::pair<std::string, core::DecisionKind>> seen;
  void OnDecision(const core::Observation& o, const core::Decision& d) override {
    seen.emplace_back(o.key, d.kind);
  }
  void Reset() override { seen.clear(); }
};

core::ErrorGroupCondition Errors() {
  core::ErrorGroupCondition c;
  c.common.name = "agent-errors";
  c.common.channels = {"chat"};
  c.key = core::KeyTemplate::Parse("{tags.tenant}:{error_group_id}").value();
  return c;
}

constexpr const char* kSourceKey = "source:fake errors";

class SourceHealthPollerTest : public ::testing::Test {
 protected:
  SourceHealthPollerTest() : clock_(core::ParseRfc3339("2026-12-02T09:00:00Z").value()) {
    Succeed();
    store_.fence = [](std::string_view, uint64_t, core::WallTime) { return core::Status{}; };
  }

  PollerOptions Options(uint32_t failures_to_open) {
    PollerOptions options;
    options.source_health["fake errors"] = SourceHealthTarget{.failures_to_open = failures_to_open,
                                                              .channels = {"ops"},
                                                              .shadow = false,
                                                              .cooldown = minutes(10)};
    return options;
  }

  void Fail() {
    source_.listing = core::GroupListing{};
    source_.listing.complete = false;
    source_.listing.error =
        core::Error{core::ErrorCode::kRejected,
                    "infrai: HTTP 401: invalid key for https://ops:s3cretpassw0rd@infrai.test/"};
  }
  void Succeed() {
    source_.listing = core::GroupListing{};
    source_.listing.complete = true;
    source_.listing.pages = 1;
  }

  CycleReport Cycle(Poller& poller, const HeldLeases* held = nullptr) {
    Sink sink;
    CycleReport report = poller.RunOnce(sink, held);
    clock_.Advance(minutes(1));
    return report;
  }

  std::vector<core::OutboxRow> RowsOf(const std::string& key) {
    std::vector<core::OutboxRow> rows;
    for (const auto& [id, row] : store_.state().outbox) {
      if (row.key == key) rows.push_back(row);
    }
    return rows;
  }

  testing::ManualClock clock_;
  testing::FakeIncidentStore store_;
  StubEncoder encoder_;
  ScriptedSource source_;
};

TEST_F(SourceHealthPollerTest, ThreeFailedPollsInARowOpenTheSourcesIncidentAndOneSuccessResolves) {
  Poller poller(store_, encoder_, clock_, Options(3));
  poller.Watch(Errors(), source_, "fake errors");
  Fail();
  Cycle(poller);
  Cycle(poller);
  EXPECT_TRUE(RowsOf(kSourceKey).empty()) << "two failed polls page nobody";
  const CycleReport third = Cycle(poller);
  ASSERT_EQ(third.source_health.size(), 1U);
  EXPECT_TRUE(third.source_health[0].applied);
  EXPECT_FALSE(third.source_health[0].poll_ok);
  auto rows = RowsOf(kSourceKey);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].transition, core::TransitionKind::kOpen);
  EXPECT_EQ(rows[0].channel, "ops");
  const core::Incident& incident = store_.state().incidents.at(kSourceKey);
  EXPECT_EQ(incident.condition, core::kSourceHealthCondition);
  EXPECT_EQ(incident.event_count, 3U);
  ASSERT_FALSE(incident.recent_evidence.empty());
  const std::string& evidence = incident.recent_evidence.back();
  EXPECT_NE(evidence.find("HTTP 401"), std::string::npos) << evidence;
  EXPECT_EQ(evidence.find("s3cretpassw0rd"), std::string::npos) << evidence;

  Fail();
  Cycle(poller);
  EXPECT_EQ(RowsOf(kSourceKey).size(), 1U) << "still failing: held open, not paged again";
  Succeed();
  Cycle(poller);
  rows = RowsOf(kSourceKey);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](const core::OutboxRow& row) {
    return row.transition == core::TransitionKind::kResolve;
  }));
  EXPECT_FALSE(store_.state().incidents.at(kSourceKey).is_open());

  // Healthy and nothing pending: further successes write nothing of the source.
  const int begins = store_.begins();
  const CycleReport quiet = Cycle(poller);
  EXPECT_TRUE(quiet.source_health.empty());
  EXPECT_EQ(store_.begins(), begins + 1) << "the condition's own transaction only";
}

TEST_F(SourceHealthPollerTest, ASuccessBetweenFailuresStartsTheCountAgain) {
  Poller poller(store_, encoder_, clock_, Options(3));
  poller.Watch(Errors(), source_, "fake errors");
  Fail();
  Cycle(poller);
  Cycle(poller);
  Succeed();
  Cycle(poller);
  Fail();
  Cycle(poller);
  Cycle(poller);
  EXPECT_TRUE(RowsOf(kSourceKey).empty());
  Cycle(poller);
  EXPECT_EQ(RowsOf(kSourceKey).size(), 1U);
}

TEST_F(SourceHealthPollerTest, ZeroTurnsItOff) {
  Poller poller(store_, encoder_, clock_, Options(0));
  poller.Watch(Errors(), source_, "fake errors");
  Fail();
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(Cycle(poller).source_health.empty());
  EXPECT_FALSE(store_.state().incidents.contains(kSourceKey));
}

TEST_F(SourceHealthPollerTest, NeverGroupedAndWrittenUnderTheSourcesLeaseWithItsToken) {
  PollerOptions options = Options(1);
  options.grouping["ops"] = core::GroupPolicy{};
  options.grouping["chat"] = core::GroupPolicy{};
  Poller poller(store_, encoder_, clock_, std::move(options));
  poller.Watch(Errors(), source_, "fake errors");
  Fail();
  // Another instance holds the lease: it writes the source's incident, this one nothing.
  const HeldLeases none;
  Cycle(poller, &none);
  EXPECT_FALSE(store_.state().incidents.contains(kSourceKey));

  const std::string lease = PollLeaseName("fake errors", minutes(1));
  const HeldLeases held = {{lease, 7}};
  const CycleReport report = Cycle(poller, &held);
  ASSERT_EQ(report.source_health.size(), 1U);
  EXPECT_EQ(report.source_health[0].lease, lease);
  EXPECT_EQ(report.source_health[0].token, 7U);
  ASSERT_FALSE(store_.fence_calls().empty());
  EXPECT_EQ(store_.fence_calls().back().lease, lease);
  EXPECT_EQ(store_.fence_calls().back().token, 7U);
  const auto rows = RowsOf(kSourceKey);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].status, core::OutboxStatus::kPending) << "group_by does not apply";
  EXPECT_TRUE(rows[0].group_key.empty());

  // A newer holder took the lease: the write is fenced, nothing of it stays.
  Succeed();
  store_.fence = [](std::string_view, uint64_t, core::WallTime) {
    return core::Status(core::MakeError(core::ErrorCode::kConflict,
                                        std::string(core::kFencedPrefix) + "lease taken over"));
  };
  const CycleReport fenced = Cycle(poller, &held);
  ASSERT_EQ(fenced.source_health.size(), 1U);
  EXPECT_TRUE(fenced.source_health[0].fenced);
  EXPECT_TRUE(store_.state().incidents.at(kSourceKey).is_open());
}

core::PushCondition Alerts(const std::string& name) {
  core::PushCondition c;
  c.common.name = name;
  c.common.channels = {"chat"};
  c.key = core::KeyTemplate::Parse("{labels.alertname}").value();
  c.stale_after = minutes(15);
  return c;
}

// An open incident of push condition `condition` last pushed at `at`.
void PutPushed(testing::FakeIncidentStore& store, const std::string& condition,
               const std::string& key, core::WallTime at) {
  core::Incident incident;
  incident.key = key;
  incident.condition = condition;
  incident.status = core::IncidentStatus::kOpen;
  incident.generation = 1;
  incident.version = 1;
  incident.opened_at = at;
  incident.last_seen_at = at;
  incident.last_observed_at = at;
  store.state().incidents[key] = incident;
}

TEST_F(SourceHealthPollerTest, APushConditionWhoseKeysAllWentStaleOpensItsSenderOnceThenResolves) {
  PollerOptions options;
  for (const char* name : {"alerts", "other"}) {
    options.source_health[std::string("push/") + name] = SourceHealthTarget{
        .failures_to_open = 3, .channels = {"ops"}, .shadow = false, .cooldown = minutes(60)};
  }
  Poller poller(store_, encoder_, clock_, std::move(options));
  poller.Watch(Alerts("alerts"));
  poller.Watch(Alerts("other"));
  const core::WallTime start = clock_.Now();
  PutPushed(store_, "alerts", "HighLatency", start - minutes(20));
  PutPushed(store_, "alerts", "ErrorBurst", start - minutes(30));
  PutPushed(store_, "other", "DiskFull", start);  // "other"'s sender is alive

  for (int sweep = 0; sweep < 8; ++sweep) Cycle(poller);
  const auto rows = RowsOf("source:push/alerts");
  ASSERT_EQ(rows.size(), 1U) << "once per condition, however many keys and sweeps";
  EXPECT_EQ(rows[0].transition, core::TransitionKind::kOpen);
  EXPECT_EQ(rows[0].channel, "ops");
  const core::Incident& sender = store_.state().incidents.at("source:push/alerts");
  EXPECT_NE(sender.recent_evidence.back().find("none of its 2 open keys"), std::string::npos)
      << sender.recent_evidence.back();
  // "other"'s key was pushed within its stale_after: its sender has nothing to say.
  EXPECT_FALSE(store_.state().incidents.contains("source:push/other"));
  // The stale keys themselves are held, not resolved.
  EXPECT_TRUE(store_.state().incidents.at("HighLatency").is_open());

  // A push refreshes one key: the sender is back, one sweep resolves its incident.
  store_.state().incidents.at("HighLatency").last_observed_at = clock_.Now();
  Cycle(poller);
  EXPECT_FALSE(store_.state().incidents.at("source:push/alerts").is_open());
  EXPECT_EQ(RowsOf("source:push/alerts").size(), 2U);
}

}  // namespace
}  // namespace quell::app
