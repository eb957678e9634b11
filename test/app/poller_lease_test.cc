#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fake_incident_store.h"
#include "manual_clock.h"
#include "quell/app/poll_leases.h"
#include "quell/app/poller.h"

namespace quell::app {
namespace poller_lease_test {

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
  int lists = 0;
  core::GroupListing List() override {
    ++lists;
    return listing;
  }
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

core::ErrorGroupCondition Errors(const std::string& name, uint32_t shards) {
  core::ErrorGroupCondition c;
  c.common.name = name;
  c.common.channels = {"oncall"};
  c.common.shards = shards;
  c.key = core::KeyTemplate::Parse("{tags.tenant}:{error_group_id}").value();
  return c;
}

// A listing of up to 60 groups over 7 tenants, each failing, resolved or absent at random.
core::GroupListing RandomListing(std::mt19937_64& random, core::WallTime at) {
  core::GroupListing listing;
  listing.complete = true;
  listing.pages = 1;
  for (int id = 0; id < 60; ++id) {
    const uint64_t roll = random() % 3;
    if (roll == 0) continue;
    core::ErrorGroup group;
    group.id = "grp_" + std::to_string(id);
    group.title = "failed";
    group.resolved = roll == 1;
    group.last_seen = at;
    group.tags = {{"tenant", "t" + std::to_string(id % 7)}};
    listing.groups.push_back(group);
  }
  return listing;
}

HeldLeases AllOf(const Poller& poller, uint64_t token) {
  HeldLeases held;
  for (const std::string& name : poller.LeaseNames()) held.emplace(name, token);
  return held;
}

TEST(PollerLeaseTest, ShardsTogetherDecideExactlyAsTheWholeCondition) {
  const core::WallTime start = core::ParseRfc3339("2026-12-02T09:00:00Z").value();
  testing::ManualClock clock(start);
  testing::FakeIncidentStore whole_store;
  testing::FakeIncidentStore sharded_store;
  sharded_store.fence = [](std::string_view, uint64_t, core::WallTime) { return core::Status{}; };
  StubEncoder encoder;
  ScriptedSource source;
  Poller whole(whole_store, encoder, clock, {});
  whole.Watch(Errors("checkout", 1), source, "fake errors");
  Poller sharded(sharded_store, encoder, clock, {});
  sharded.Watch(Errors("checkout", 4), source, "fake errors");
  ASSERT_EQ(sharded.LeaseNames().size(), 4U);
  EXPECT_EQ(sharded.LeaseNames()[1],
            ShardLeaseName("fake errors", std::chrono::minutes(1), "checkout", 1, 4));
  const HeldLeases held = AllOf(sharded, 3);

  std::mt19937_64 random(18);
  size_t transitions = 0;
  for (int poll = 0; poll < 12; ++poll) {
    source.listing = RandomListing(random, clock.Now());
    Sink whole_sink;
    Sink sharded_sink;
    ASSERT_TRUE(whole.RunOnce(whole_sink).ok());
    const CycleReport report = sharded.RunOnce(sharded_sink, &held);
    ASSERT_TRUE(report.ok());
    ASSERT_EQ(report.conditions.size(), 4U);
    std::sort(whole_sink.seen.begin(), whole_sink.seen.end());
    std::sort(sharded_sink.seen.begin(), sharded_sink.seen.end());
    EXPECT_EQ(sharded_sink.seen, whole_sink.seen) << "poll " << poll;
    clock.Advance(std::chrono::minutes(1));
  }
  for (const auto& [key, incident] : whole_store.state().incidents) {
    const auto it = sharded_store.state().incidents.find(key);
    ASSERT_NE(it, sharded_store.state().incidents.end()) << key;
    EXPECT_EQ(it->second.status, incident.status) << key;
    EXPECT_EQ(it->second.generation, incident.generation) << key;
  }
  EXPECT_EQ(sharded_store.state().incidents.size(), whole_store.state().incidents.size());
  std::vector<std::string> whole_rows;
  std::vector<std::string> sharded_rows;
  for (const auto& [id, row] : whole_store.state().outbox) whole_rows.push_back(id);
  for (const auto& [id, row] : sharded_store.state().outbox) sharded_rows.push_back(id);
  transitions = whole_rows.size();
  EXPECT_GT(transitions, 10U) << "the listing must move enough to test anything";
  EXPECT_EQ(sharded_rows, whole_rows);
  // Each shard keeps its own watermark.
  EXPECT_TRUE(sharded_store.state().marks.contains("watermark:checkout/shard-3-of-4"));
  // Every transaction is fenced: a shard's poll commits its listing's failing keys, then its
  // unseen incidents with the marks, so at least one per shard and poll.
  EXPECT_GE(sharded_store.fence_calls().size(), 12U * 4U);
  for (const auto& call : sharded_store.fence_calls()) EXPECT_EQ(call.token, 3U) << call.lease;
}

class ScriptedMetrics : public core::MetricSource {
 public:
  core::MetricAnswer answer;
  core::Result<core::MetricAnswer> Query(const core::MetricQuery&) override { return answer; }
};

// Metric conditions shard likewise: an open incident whose series left the answer follows the
// no-data rule within its own shard only.
TEST(PollerLeaseTest, AShardedMetricConditionDecidesAsTheWholeOne) {
  testing::ManualClock clock(core::ParseRfc3339("2026-12-02T09:00:00Z").value());
  testing::FakeIncidentStore whole_store;
  testing::FakeIncidentStore sharded_store;
  sharded_store.fence = [](std::string_view, uint64_t, core::WallTime) { return core::Status{}; };
  StubEncoder encoder;
  ScriptedMetrics source;
  core::MetricCondition condition;
  condition.common.name = "latency";
  condition.common.channels = {"oncall"};
  condition.key = core::KeyTemplate::Parse("{tenant}:latency").value();
  condition.threshold.trigger = 100;
  condition.no_data = core::NoDataRule::kHealthy;
  Poller whole(whole_store, encoder, clock, {});
  whole.Watch(condition, source, "prometheus");
  condition.common.shards = 3;
  Poller sharded(sharded_store, encoder, clock, {});
  sharded.Watch(condition, source, "prometheus");
  const HeldLeases held = AllOf(sharded, 5);
  std::mt19937_64 random(7);
  for (int poll = 0; poll < 10; ++poll) {
    source.answer.series.clear();
    for (int tenant = 0; tenant < 20; ++tenant) {
      if (random() % 4 == 0) continue;  // absent: no data
      core::MetricSeries series;
      series.name = "latency_ms";
      series.labels = {{"tenant", "t" + std::to_string(tenant)}};
      series.points = {{clock.Now(), static_cast<double>(random() % 200)}};
      source.answer.series.push_back(series);
    }
    Sink whole_sink;
    Sink sharded_sink;
    ASSERT_TRUE(whole.RunOnce(whole_sink).ok());
    ASSERT_TRUE(sharded.RunOnce(sharded_sink, &held).ok());
    std::sort(whole_sink.seen.begin(), whole_sink.seen.end());
    std::sort(sharded_sink.seen.begin(), sharded_sink.seen.end());
    EXPECT_EQ(sharded_sink.seen, whole_sink.seen) << "poll " << poll;
    clock.Advance(std::chrono::minutes(1));
  }
  EXPECT_GT(whole_store.state().outbox.size(), 5U);
  EXPECT_EQ(sharded_store.state().outbox.size(), whole_store.state().outbox.size());
}

TEST(PollerLeaseTest, AWatchNotHeldIsSkippedAndItsSourceNotAsked) {
  testing::ManualClock clock(core::ParseRfc3339("2026-12-02T09:00:00Z").value());
  testing::FakeIncidentStore store;
  store.fence = [](std::string_view, uint64_t, core::WallTime) { return core::Status{}; };
  StubEncoder encoder;
  ScriptedSource source;
  std::mt19937_64 random(1);
  source.listing = RandomListing(random, clock.Now());
  Poller poller(store, encoder, clock, {});
  poller.Watch(Errors("checkout", 1), source, "fake errors");
  poller.Watch(Errors("billing", 1), source, "fake errors");
  ASSERT_EQ(poller.LeaseNames(),
            std::vector<std::string>{PollLeaseName("fake errors", std::chrono::minutes(1))});

  Sink sink;
  const HeldLeases none;
  const CycleReport idle = poller.RunOnce(sink, &none);
  EXPECT_TRUE(idle.conditions.empty());
  EXPECT_EQ(source.lists, 0);
  EXPECT_TRUE(store.state().incidents.empty());

  const HeldLeases held = AllOf(poller, 9);
  const CycleReport polled = poller.RunOnce(sink, &held);
  ASSERT_EQ(polled.conditions.size(), 2U);
  EXPECT_EQ(source.lists, 1) << "a listing shared by held watches is fetched once";
  EXPECT_EQ(polled.conditions[0].token, 9U);
  // Each condition commits its failing keys, then its unseen incidents: both fenced.
  ASSERT_EQ(store.fence_calls().size(), 4U);
  for (const auto& call : store.fence_calls()) EXPECT_EQ(call.token, 9U);

  // Unfenced (poll-once): every watch, no lease asked.
  const CycleReport unfenced = poller.RunOnce(sink);
  EXPECT_EQ(unfenced.conditions.size(), 2U);
  EXPECT_EQ(store.fence_calls().size(), 4U);
}

TEST(PollerLeaseTest, ACommitRefusedByTheFenceIsReportedFenced) {
  testing::ManualClock clock(core::ParseRfc3339("2026-12-02T09:00:00Z").value());
  testing::FakeIncidentStore store;
  store.fence = [](std::string_view, uint64_t, core::WallTime) {
    return core::Status(core::MakeError(core::ErrorCode::kConflict, "fenced: lease taken over"));
  };
  StubEncoder encoder;
  ScriptedSource source;
  source.listing.complete = true;
  source.listing.groups.push_back(core::ErrorGroup{});
  source.listing.groups[0].id = "grp_1";
  Poller poller(store, encoder, clock, {});
  poller.Watch(Errors("checkout", 1), source, "fake errors");
  Sink sink;
  const HeldLeases held = AllOf(poller, 4);
  const CycleReport report = poller.RunOnce(sink, &held);
  ASSERT_EQ(report.conditions.size(), 1U);
  EXPECT_TRUE(report.conditions[0].fenced);
  EXPECT_FALSE(report.conditions[0].applied);
  EXPECT_TRUE(sink.seen.empty());
  EXPECT_TRUE(store.state().incidents.empty());
}

}  // namespace poller_lease_test
}  // namespace quell::app
