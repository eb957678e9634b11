#include "quell/app/poller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "fake_clock.h"
#include "fake_http_client.h"
#include "fake_incident_store.h"
#include "fake_operator_store.h"
#include "quell/app/group_evidence.h"
#include "quell/app/operator_commands.h"

namespace quell::app {
namespace {

using std::chrono::minutes;

using testing::FakeClock;

class StubEncoder : public core::PayloadEncoder {
 public:
  void Encode(const core::Incident& incident, core::TransitionKind,
              std::string& out) const override {
    out = incident.key;
  }
};

// An error-group source whose listing and details the test scripts.
class FakeGroupSource : public core::ErrorGroupSource {
 public:
  core::GroupListing listing;
  std::atomic<int> lists{0};
  std::atomic<int> details{0};
  std::atomic<int> in_flight{0};
  std::atomic<int> max_in_flight{0};

  core::GroupListing List() override {
    ++lists;
    return listing;
  }
  core::Result<core::GroupDetail> Detail(std::string_view id) override {
    const int now = ++in_flight;
    int seen = max_in_flight.load();
    while (now > seen && !max_in_flight.compare_exchange_weak(seen, now)) {
    }
    ++details;
    core::GroupDetail detail;
    detail.group.id = std::string(id);
    detail.events.push_back(core::GroupEvent{.event_id = "evt-" + std::string(id),
                                             .at = std::nullopt,
                                             .message = "detail",
                                             .exception = {}});
    --in_flight;
    return detail;
  }
};

class FakeMetricSource : public core::MetricSource {
 public:
  core::Result<core::MetricAnswer> answer = core::MetricAnswer{};
  int queries = 0;
  core::Result<core::MetricAnswer> Query(const core::MetricQuery&) override {
    ++queries;
    return answer;
  }
};

class CollectingSink : public DecisionSink {
 public:
  std::vector<std::pair<std::string, core::DecisionKind>> seen;
  void OnDecision(const core::Observation& o, const core::Decision& d) override {
    seen.emplace_back(o.key, d.kind);
  }
  void Reset() override { seen.clear(); }
};

core::ErrorGroup Group(const std::string& id, bool resolved = false) {
  core::ErrorGroup g;
  g.id = id;
  g.title = "Model call failed";
  g.resolved = resolved;
  g.last_seen = core::ParseRfc3339("2026-12-02T09:00:00Z").value();
  g.tags = {{"agent_stage", "model-answer"}, {"tenant", "acme"}};
  return g;
}

core::ErrorGroupCondition Errors() {
  core::ErrorGroupCondition c;
  c.common.name = "agent-errors";
  c.common.channels = {"oncall"};
  c.key = core::KeyTemplate::Parse("{tags.tenant}:{tags.agent_stage}:{error_group_id}").value();
  return c;
}

class PollerTest : public ::testing::Test {
 protected:
  PollerTest() : clock_(core::ParseRfc3339("2026-12-02T09:00:00Z").value()) {
    source_.listing.complete = true;
    source_.listing.pages = 1;
  }

  Poller MakePoller(PollerOptions options = {}) {
    options.group_evidence = [](const core::ErrorGroup& g, const core::GroupDetail* detail) {
      return std::string("{\"group\":\"") + g.id +
             "\",\"enriched\":" + (detail != nullptr ? "true" : "false") + "}";
    };
    Poller poller(store_, encoder_, clock_, std::move(options));
    poller.Watch(Errors(), source_, "fake errors");
    return poller;
  }

  size_t OutboxRows() { return store_.state().outbox.size(); }

  testing::FakeIncidentStore store_;
  StubEncoder encoder_;
  FakeClock clock_;
  FakeGroupSource source_;
};

TEST_F(PollerTest, AnErrorOpenAtThreePollsNotifiesOnce) {
  source_.listing.groups = {Group("grp_7")};
  Poller poller = MakePoller();
  std::vector<core::DecisionKind> kinds;
  for (int poll = 0; poll < 3; ++poll) {
    CollectingSink sink;
    const CycleReport report = poller.RunOnce(sink);
    EXPECT_TRUE(report.ok());
    ASSERT_EQ(sink.seen.size(), 1U);
    EXPECT_EQ(sink.seen[0].first, "acme:model-answer:grp_7");
    kinds.push_back(sink.seen[0].second);
    clock_.Advance(minutes(1));
  }
  EXPECT_EQ(kinds, (std::vector<core::DecisionKind>{core::DecisionKind::kNotify,
                                                    core::DecisionKind::kUpdateOnly,
                                                    core::DecisionKind::kUpdateOnly}));
  EXPECT_EQ(OutboxRows(), 1U);
  EXPECT_EQ(store_.state().outbox.begin()->second.channel, "oncall");
}

// The shadow report's pairs age out, but a scan per poll would cost every cycle: the poller
// prunes at most once per key_group_prune_every, and only pairs older than the retention.
TEST_F(PollerTest, KeyGroupPairsAgeOutAtMostOncePerPruneInterval) {
  PollerOptions options;
  options.key_group_retention = std::chrono::hours(1);
  options.key_group_prune_every = std::chrono::hours(1);
  Poller poller = MakePoller(options);
  CollectingSink sink;
  auto& pairs = store_.state().key_groups;
  source_.listing.groups = {Group("grp_a"), Group("grp_b")};
  poller.RunOnce(sink);  // 09:00: both seen, and the first cycle prunes (nothing yet)
  ASSERT_EQ(pairs.size(), 2U);

  source_.listing.groups = {Group("grp_b")};
  clock_.Advance(minutes(30));
  pairs.begin()->second.last_seen_at -= std::chrono::hours(2);  // grp_a: last seen 07:00
  poller.RunOnce(sink);  // 09:30: grp_a is past the retention, but no prune is due yet
  EXPECT_EQ(pairs.size(), 2U);

  clock_.Advance(minutes(30));
  poller.RunOnce(sink);  // 10:00: due; grp_a goes, grp_b (seen now) stays
  ASSERT_EQ(pairs.size(), 1U);
  EXPECT_EQ(pairs.begin()->first.second, "grp_b");

  source_.listing.groups = {};
  clock_.Advance(minutes(61));
  poller.RunOnce(sink);  // 11:01: grp_b last seen 10:00, 61 minutes ago: past the retention
  EXPECT_TRUE(pairs.empty());
}

TEST_F(PollerTest, AShadowConditionWritesShadowRowsAndOthersDoNot) {
  source_.listing.groups = {Group("grp_7")};
  core::ErrorGroupCondition shadow = Errors();
  shadow.common.name = "trial-errors";
  shadow.common.shadow = true;
  shadow.key = core::KeyTemplate::Parse("trial:{error_group_id}").value();
  Poller poller = MakePoller();
  poller.Watch(shadow, source_, "fake errors");
  CollectingSink sink;
  EXPECT_TRUE(poller.RunOnce(sink).ok());
  ASSERT_EQ(OutboxRows(), 2U);
  for (const auto& [id, row] : store_.state().outbox) {
    EXPECT_EQ(row.status,
              row.key == "trial:grp_7" ? core::OutboxStatus::kShadow : core::OutboxStatus::kPending)
        << row.key;
  }
}

TEST_F(PollerTest, AFailedPollBetweenFailuresNeverCountsAsHealthy) {
  PollerOptions options;
  Poller poller = MakePoller(options);
  source_.listing.groups = {Group("grp_7")};
  CollectingSink sink;
  ASSERT_TRUE(poller.RunOnce(sink).ok());

  // Resolved in the source, then two failed polls, then resolved again: with a streak of 3,
  // the failed polls must not count, so the incident is still open after the third cycle.
  source_.listing.groups = {Group("grp_7", /*resolved=*/true)};
  for (const bool fail : {false, true, true, false}) {
    clock_.Advance(minutes(1));
    source_.listing.complete = !fail;
    source_.listing.error = core::MakeError(core::ErrorCode::kUnavailable, "HTTP 503");
    sink.seen.clear();
    const CycleReport report = poller.RunOnce(sink);
    EXPECT_EQ(report.ok(), !fail);
    if (fail) {
      EXPECT_FALSE(report.conditions[0].source_ok);
      EXPECT_EQ(report.conditions[0].source_error, "HTTP 503");
      ASSERT_EQ(sink.seen.size(), 1U);
      EXPECT_EQ(sink.seen[0].second, core::DecisionKind::kUnknown);
    }
  }
  auto incident = store_.FindIncident("acme:model-answer:grp_7");
  ASSERT_TRUE(incident.ok() && incident->has_value());
  EXPECT_TRUE((*incident)->is_open());
  EXPECT_EQ((*incident)->healthy_streak, 2U);
}

// The upstream error: a source's answer quoting an API key and an e-mail reached the
// log lines, /v1/sources and the page through source_error.
TEST_F(PollerTest, ASourcesErrorIsKeptRedacted) {
  Poller poller = MakePoller(PollerOptions{});
  source_.listing.complete = false;
  source_.listing.error = core::MakeError(
      core::ErrorCode::kPermissionDenied,
      "GET http://infrai.test/v1/errors/groups?api_key=ifr_pk_live_0123456789abcdef: HTTP 401 "
      "UNAUTHORIZED: key ifr_pk_live_0123456789abcdef of ops@acme.example was revoked");
  CollectingSink sink;
  const CycleReport report = poller.RunOnce(sink);
  ASSERT_EQ(report.conditions.size(), 1U);
  const std::string& error = report.conditions[0].source_error;
  EXPECT_EQ(error.find("0123456789abcdef"), std::string::npos) << error;
  EXPECT_EQ(error.find("ops@acme.example"), std::string::npos) << error;
  EXPECT_NE(error.find("groups?api_key=[redacted]: HTTP 401 UNAUTHORIZED"), std::string::npos)
      << error;
}

TEST_F(PollerTest, EnrichesOnlyTransitionsWithinTheLimitAndConcurrency) {
  for (int i = 0; i < 30; ++i) source_.listing.groups.push_back(Group("grp_" + std::to_string(i)));
  PollerOptions options;
  options.max_enrich = 10;
  options.enrich_concurrency = 3;
  Poller poller = MakePoller(options);
  CollectingSink sink;
  const CycleReport first = poller.RunOnce(sink);
  EXPECT_EQ(first.conditions[0].enriched, 10U);
  EXPECT_EQ(source_.details.load(), 10);
  EXPECT_LE(source_.max_in_flight.load(), 3);
  size_t enriched = 0;
  for (const auto& [key, incident] : store_.state().incidents) {
    ASSERT_EQ(incident.recent_evidence.size(), 1U);
    if (incident.recent_evidence[0].find("\"enriched\":true") != std::string::npos) ++enriched;
  }
  EXPECT_EQ(enriched, 10U);

  // Inside the cooldown nothing transitions, so nothing is fetched.
  clock_.Advance(minutes(1));
  const CycleReport second = poller.RunOnce(sink);
  EXPECT_EQ(second.conditions[0].enriched, 0U);
  EXPECT_EQ(source_.details.load(), 10);
}

TEST_F(PollerTest, TheWatermarkMovesOnlyWithACompleteListing) {
  core::ErrorGroupCondition condition = Errors();
  condition.rule = core::UnhealthyRule::kNewEvents;
  Poller poller(store_, encoder_, clock_, PollerOptions{});
  poller.Watch(condition, source_, "fake errors");
  source_.listing.groups = {Group("grp_7")};
  CollectingSink sink;
  ASSERT_TRUE(poller.RunOnce(sink).ok());
  EXPECT_EQ(store_.GetSourceMark(WatermarkMarkName("agent-errors")).value(),
            std::optional<std::string>("2026-12-02T09:00:00Z"));

  source_.listing.groups[0].last_seen = core::ParseRfc3339("2026-12-02T09:05:00Z").value();
  source_.listing.complete = false;
  clock_.Advance(minutes(1));
  EXPECT_FALSE(poller.RunOnce(sink).ok());
  EXPECT_EQ(store_.GetSourceMark(WatermarkMarkName("agent-errors")).value(),
            std::optional<std::string>("2026-12-02T09:00:00Z"));
}

TEST_F(PollerTest, ConditionsSharingAQueryFetchItOnce) {
  FakeMetricSource metrics;
  core::MetricSeries series;
  series.name = "latency";
  series.labels = {{"tenant", "acme"}};
  series.points = {{clock_.Now(), 3000}};
  metrics.answer = core::MetricAnswer{.series = {series}, .window_end = {}};
  Poller poller(store_, encoder_, clock_, PollerOptions{});
  for (const char* name : {"p99-a", "p99-b"}) {
    core::MetricCondition c;
    c.common.name = name;
    c.key = core::KeyTemplate::Parse(std::string("{tenant}:") + name).value();
    c.metric = "latency";
    c.threshold.trigger = 2000;
    poller.Watch(c, metrics, "fake metrics");
  }
  CollectingSink sink;
  const CycleReport report = poller.RunOnce(sink);
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(metrics.queries, 1);
  EXPECT_EQ(sink.seen.size(), 2U);
  EXPECT_EQ(OutboxRows(), 2U);
}

// A metric source that sends one request per query through the client it is given.
class HttpMetricSource : public core::MetricSource {
 public:
  explicit HttpMetricSource(core::HttpClient& http) : http_(http) {}
  core::Result<core::MetricAnswer> Query(const core::MetricQuery&) override {
    core::HttpRequest request;
    request.url = "http://127.0.0.1:9090/api/v1/query";
    auto response = http_.Send(request);
    if (!response) return response.error();
    if (response->status != 200) {
      return core::MakeError(
          core::ErrorCode::kUnavailable,
          "HTTP " + std::to_string(response->status) + " (" + response->retry_note + ")");
    }
    return core::MetricAnswer{};
  }

 private:
  core::HttpClient& http_;
};

// Each cycle retries on a budget of its own: a cycle that spent most of it does not leave the
// next one unable to wait out a Retry-After.
TEST_F(PollerTest, EachCycleStartsWithAFreshRetryBudget) {
  testing::FakeHttpClient http;
  http.Respond(429, {{"Retry-After", "7"}})
      .Respond(200)
      .Respond(429, {{"Retry-After", "7"}})
      .Respond(200);
  RetryingHttpClient retrying(http, clock_, RetryPolicy{}, 1);
  BudgetedHttpClient budgeted(retrying, std::chrono::seconds(10));
  HttpMetricSource metrics(budgeted);
  Poller poller(store_, encoder_, clock_, PollerOptions{});
  core::MetricCondition c;
  c.common.name = "p99";
  c.key = core::KeyTemplate::Parse("{tenant}:p99").value();
  c.metric = "latency";
  c.threshold.trigger = 2000;
  poller.Watch(c, metrics, "fake metrics");
  poller.RenewEachCycle(budgeted, std::nullopt);
  CollectingSink sink;
  for (int cycle = 0; cycle < 2; ++cycle) {
    const CycleReport report = poller.RunOnce(sink);
    ASSERT_EQ(report.conditions.size(), 1U);
    EXPECT_TRUE(report.ok()) << "cycle " << cycle << ": " << report.conditions[0].source_error;
  }
  EXPECT_EQ(http.requests().size(), 4U);
}

// A typo'd query or label answers no series: nothing is observed, which looks like health. The
// poller counts such answers per condition and flags the condition at no_series_warn_after.
TEST_F(PollerTest, AMetricConditionKeepingNoSeriesIsFlaggedAfterItsWarnCount) {
  FakeMetricSource metrics;
  core::MetricSeries series;
  series.name = "latency";
  series.labels = {{"tenant", "acme"}};
  series.points = {{clock_.Now(), 1}};
  metrics.answer = core::MetricAnswer{.series = {series}, .window_end = {}};
  core::MetricCondition c;
  c.common.name = "p99";
  c.common.no_series_warn_after = 3;
  c.key = core::KeyTemplate::Parse("{tenant}:p99").value();
  c.metric = "latencyy";  // the typo: the answer has series, none of this name
  c.query.expr = "latency";
  c.threshold.trigger = 2000;
  Poller poller(store_, encoder_, clock_, PollerOptions{});
  poller.Watch(c, metrics, "fake metrics");
  const auto poll = [&] {
    CollectingSink sink;
    const CycleReport report = poller.RunOnce(sink);
    clock_.Advance(minutes(1));
    return report.conditions.at(0);
  };
  for (uint32_t n = 1; n <= 4; ++n) {
    const ConditionOutcome outcome = poll();
    EXPECT_EQ(outcome.empty_polls, n);
    EXPECT_EQ(outcome.no_series_warning, n >= 3) << n;
    EXPECT_EQ(outcome.query, "latency");
  }
  // A failed query proves nothing: the count holds.
  metrics.answer = core::MakeError(core::ErrorCode::kUnavailable, "down");
  EXPECT_EQ(poll().empty_polls, 4u);
  // An answer with a series the condition keeps resets it.
  series.name = "latencyy";
  metrics.answer = core::MetricAnswer{.series = {series}, .window_end = {}};
  const ConditionOutcome kept = poll();
  EXPECT_EQ(kept.empty_polls, 0u);
  EXPECT_FALSE(kept.no_series_warning);
}

TEST_F(PollerTest, AStoreFailureIsReportedAndNothingIsPrinted) {
  source_.listing.groups = {Group("grp_7")};
  Poller poller = MakePoller();
  store_.FailNextCommit(10, core::ErrorCode::kUnavailable);
  CollectingSink sink;
  const CycleReport report = poller.RunOnce(sink);
  EXPECT_FALSE(report.ok());
  EXPECT_FALSE(report.conditions[0].applied);
  EXPECT_FALSE(report.conditions[0].apply_error.empty());
  EXPECT_TRUE(sink.seen.empty());
  EXPECT_EQ(OutboxRows(), 0U);
}

// The defect: a manual resolve of a group still failing upstream paged again within
// a second as generation 2. Now the key is held resolved until the source is seen healthy.
class ManualResolveTest : public PollerTest {
 protected:
  static constexpr const char* kKey = "acme:model-answer:grp_7";

  std::vector<core::DecisionKind> Poll(Poller& poller) {
    CollectingSink sink;
    EXPECT_TRUE(poller.RunOnce(sink).ok());
    std::vector<core::DecisionKind> kinds;
    for (const auto& [key, kind] : sink.seen) kinds.push_back(kind);
    return kinds;
  }
  std::vector<core::TransitionKind> Transitions() {
    std::vector<core::TransitionKind> out;
    for (const auto& [id, row] : store_.state().outbox) out.push_back(row.transition);
    std::sort(out.begin(), out.end());
    return out;
  }
  const core::Incident& Stored() { return store_.state().incidents.at(kKey); }
  core::Result<ResolveResult> Resolve(ResolveOptions options = {}) {
    return ops_.Resolve(kKey, "alice", clock_.Now(), options);
  }

  testing::FakeOperatorStore operators_;
  OperatorCommands ops_{
      store_, operators_, encoder_, [](std::string_view) {
        return std::optional<Route>(Route{.channels = {"oncall"}, .shadow = false});
      }};
};

TEST_F(ManualResolveTest, AStillFailingGroupDoesNotPageAgainUntilSeenHealthy) {
  source_.listing.groups = {Group("grp_7")};
  Poller poller = MakePoller();
  EXPECT_EQ(Poll(poller), std::vector{core::DecisionKind::kNotify});
  clock_.Advance(std::chrono::seconds(30));
  ASSERT_TRUE(Resolve().ok());
  EXPECT_EQ(Stored().status, core::IncidentStatus::kResolved);

  // Still failing for two hours, far past the 10-minute cooldown: recorded, never paged.
  for (int poll = 0; poll < 120; ++poll) {
    clock_.Advance(minutes(1));
    ASSERT_EQ(Poll(poller), std::vector{core::DecisionKind::kUpdateOnly}) << poll;
  }
  EXPECT_EQ(Stored().generation, 1u);
  EXPECT_EQ(Stored().status, core::IncidentStatus::kResolved);
  EXPECT_EQ(Stored().last_seen_at, clock_.Now());
  EXPECT_EQ(Transitions(),
            (std::vector{core::TransitionKind::kOpen, core::TransitionKind::kResolve}));

  // Gone from the listing: seen healthy once, which ends the hold.
  source_.listing.groups.clear();
  clock_.Advance(minutes(1));
  EXPECT_EQ(Poll(poller), std::vector{core::DecisionKind::kIgnore});
  EXPECT_FALSE(Stored().held);

  // Failing again: a new outage, paged as generation 2.
  source_.listing.groups = {Group("grp_7")};
  clock_.Advance(minutes(1));
  EXPECT_EQ(Poll(poller), std::vector{core::DecisionKind::kNotify});
  EXPECT_EQ(Stored().generation, 2u);
  EXPECT_EQ(Transitions(), (std::vector{core::TransitionKind::kOpen, core::TransitionKind::kOpen,
                                        core::TransitionKind::kResolve}));
}

TEST_F(ManualResolveTest, AHoldForADurationEndsThenEvenIfNeverHealthy) {
  source_.listing.groups = {Group("grp_7")};
  Poller poller = MakePoller();
  Poll(poller);
  ResolveOptions options;
  options.hold_for = minutes(30);
  ASSERT_TRUE(Resolve(options).ok());
  EXPECT_EQ(Stored().held_until, clock_.Now() + minutes(30));
  for (int poll = 1; poll < 30; ++poll) {
    clock_.Advance(minutes(1));
    ASSERT_EQ(Poll(poller), std::vector{core::DecisionKind::kUpdateOnly}) << poll;
  }
  clock_.Advance(minutes(1));  // resolved_at + 30 min
  EXPECT_EQ(Poll(poller), std::vector{core::DecisionKind::kNotify});
  EXPECT_EQ(Stored().generation, 2u);
  EXPECT_FALSE(Stored().held);
}

// A steady poll takes an unchanged group's evidence from its incident (the fingerprint of what
// the newest evidence was built from) instead of building it again; a group that changed is
// built anew. Either way the incident keeps exactly what a build would give.
TEST_F(PollerTest, AnUnchangedGroupTakesItsEvidenceFromItsIncident) {
  std::atomic<int> summary_builds{0};
  PollerOptions options;
  options.max_enrich = 0;  // summary evidence only
  options.group_evidence = [&summary_builds](const core::ErrorGroup& g,
                                             const core::GroupDetail* detail) {
    if (detail == nullptr) ++summary_builds;
    return GroupEvidence(g, detail, core::RedactOptions{});
  };
  options.group_evidence_reuse = GroupEvidenceReuse{
      .source = GroupEvidenceSource,
      .fingerprint = [](const core::ErrorGroup& g) { return GroupEvidenceFingerprint(g, 7); }};
  Poller poller(store_, encoder_, clock_, std::move(options));
  poller.Watch(Errors(), source_, "fake errors");
  source_.listing.groups = {Group("grp_7"), Group("grp_8")};
  const std::string key = "acme:model-answer:grp_7";
  const auto newest = [&] { return store_.state().incidents.at(key).recent_evidence.back(); };

  CollectingSink first;
  ASSERT_TRUE(poller.RunOnce(first).ok());
  EXPECT_EQ(summary_builds.load(), 2);  // nothing stored to take it from
  EXPECT_EQ(newest(), GroupEvidence(Group("grp_7"), nullptr, core::RedactOptions{}));
  ASSERT_TRUE(store_.state().incidents.at(key).evidence_fingerprint.has_value());

  clock_.Advance(minutes(1));
  CollectingSink steady;
  ASSERT_TRUE(poller.RunOnce(steady).ok());
  EXPECT_EQ(summary_builds.load(), 2);  // both taken from their incidents
  EXPECT_EQ(store_.state().incidents.at(key).recent_evidence.size(), 1U);

  // A new title is a new fingerprint: built, and appended as the newest evidence.
  source_.listing.groups[0].title = "Model call failed again";
  clock_.Advance(minutes(1));
  CollectingSink changed;
  ASSERT_TRUE(poller.RunOnce(changed).ok());
  EXPECT_EQ(summary_builds.load(), 3);
  EXPECT_EQ(newest(), GroupEvidence(source_.listing.groups[0], nullptr, core::RedactOptions{}));
  EXPECT_EQ(store_.state().incidents.at(key).recent_evidence.size(), 2U);
}

}  // namespace
}  // namespace quell::app
