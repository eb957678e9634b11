#include "quell/app/poll_applier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "fake_incident_store.h"
#include "quell/core/delivery/tenant_budget.h"
#include "quell/core/engine/evaluate.h"

namespace quell::app {
namespace {

using core::DecisionKind;
using core::Health;

core::WallTime At(int minute) { return core::WallTime(std::chrono::minutes(29'000'000 + minute)); }

core::Observation Obs(int minute, const std::string& key, Health health) {
  core::Observation o;
  o.key = key;
  o.at = At(minute);
  o.health = health;
  return o;
}

class VectorStream : public core::ObservationStream {
 public:
  explicit VectorStream(std::vector<core::Observation> o, bool rewindable = true)
      : o_(std::move(o)), rewindable_(rewindable) {}
  core::Result<bool> Next(core::Observation& out) override {
    if (i_ >= o_.size()) return false;
    out = o_[i_++];
    return true;
  }
  core::Status Rewind() override {
    if (!rewindable_) return core::MakeError(core::ErrorCode::kUnavailable, "pipe");
    i_ = 0;
    return {};
  }

 private:
  std::vector<core::Observation> o_;
  bool rewindable_;
  size_t i_ = 0;
};

class Sink : public DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision& d) override {
    kinds.push_back(d.kind);
  }
  void Reset() override {
    kinds.clear();
    ++resets;
  }
  std::vector<DecisionKind> kinds;
  int resets = 0;
};

class FixedPayload : public core::PayloadEncoder {
 public:
  void Encode(const core::Incident& in, core::TransitionKind t, std::string& out) const override {
    out = in.key + ":" + core::TransitionName(t);
  }
};

class PollApplierTest : public ::testing::Test {
 protected:
  core::Result<ApplySummary> Apply(std::vector<core::Observation> poll, bool rewindable = true) {
    PollApplier applier(store_, payload_, options_);
    VectorStream stream(std::move(poll), rewindable);
    return applier.Apply(stream, "p", At(1000), sink_);
  }
  testing::FakeIncidentStore store_;
  FixedPayload payload_;
  ApplyOptions options_;
  Sink sink_;
};

TEST_F(PollApplierTest, WritesOneOutboxRowPerTransitionPerChannel) {
  options_.channels = {"default", "pager"};
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy), Obs(1, "b", Health::kHealthy)});
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(store_.state().outbox.size(), 2u);
  EXPECT_EQ(store_.state().outbox.begin()->second.payload, "a:open");
  EXPECT_EQ(summary->poll.outbox_rows, 2u);
  EXPECT_EQ(summary->poll.changed, 1u);
  EXPECT_EQ(summary->poll.by_decision[static_cast<size_t>(DecisionKind::kIgnore)], 1u);
}

TEST_F(PollApplierTest, MarksAnUnknownObservationOfAnOpenKeyAndNothingForHealthyKeys) {
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy), Obs(0, "b", Health::kHealthy),
                        Obs(1, "a", Health::kUnknown), Obs(1, "b", Health::kUnknown),
                        Obs(1, "c", Health::kUnknown)});
  ASSERT_TRUE(summary.ok());
  const auto& marks = store_.state().observation_marks;
  ASSERT_EQ(marks.size(), 1u);
  const core::ObservationMark& mark = marks.begin()->second;
  EXPECT_EQ(mark.key, "a");
  EXPECT_EQ(mark.poll_id, "p");
  EXPECT_EQ(mark.at, At(1));
  EXPECT_EQ(mark.generation, 1u);
  EXPECT_EQ(mark.health, Health::kUnknown);
  EXPECT_EQ(mark.decision, DecisionKind::kUnknown);
  EXPECT_EQ(summary->poll.by_decision[static_cast<size_t>(DecisionKind::kUnknown)], 3u);
}

TEST_F(PollApplierTest, RoutesPickChannelsPerIncidentFirstMatchWinsElseTheConditionsChannels) {
  options_.channels = {"chat"};
  options_.routes = {{{{"severity", "critical"}}, {"pager"}, {}},
                     {{{"tenant", "acme"}}, {"vip"}, {}}};
  // The severity comes from the payload, as the renderer would compute it.
  options_.severity_of = [](std::string_view payload) {
    return std::string(payload.starts_with("crit") ? "critical" : "error");
  };
  auto labelled = [](core::Observation o, std::string tenant) {
    o.labels = {{"tenant", std::move(tenant)}};
    return o;
  };
  auto summary = Apply({labelled(Obs(0, "crit-acme", Health::kUnhealthy), "acme"),
                        labelled(Obs(0, "db-acme", Health::kUnhealthy), "acme"),
                        labelled(Obs(0, "db-beta", Health::kUnhealthy), "beta")});
  ASSERT_TRUE(summary.ok());
  std::map<std::string, std::vector<std::string>> channels_of;
  for (const auto& [id, row] : store_.state().outbox) channels_of[row.key].push_back(row.channel);
  EXPECT_EQ(channels_of["crit-acme"], (std::vector<std::string>{"pager"}));  // first match
  EXPECT_EQ(channels_of["db-acme"], (std::vector<std::string>{"vip"}));
  EXPECT_EQ(channels_of["db-beta"], (std::vector<std::string>{"chat"}));  // no route: fallback
}

TEST_F(PollApplierTest, ARouteWithoutMatchCatchesEverythingLeft) {
  options_.channels = {"chat"};
  options_.routes = {{{{"tenant", "acme"}}, {"vip"}, {}}, {{}, {"ops", "pager"}, {}}};
  auto summary = Apply({Obs(0, "x", Health::kUnhealthy)});
  ASSERT_TRUE(summary.ok());
  std::vector<std::string> channels;
  for (const auto& [id, row] : store_.state().outbox) channels.push_back(row.channel);
  std::sort(channels.begin(), channels.end());
  EXPECT_EQ(channels, (std::vector<std::string>{"ops", "pager"}));
}

TEST_F(PollApplierTest, AShadowApplyWritesItsOutboxRowsAsShadow) {
  options_.channels = {"default", "pager"};
  options_.shadow = true;
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy)});
  ASSERT_TRUE(summary.ok());
  ASSERT_EQ(store_.state().outbox.size(), 2u);
  for (const auto& [id, row] : store_.state().outbox) {
    EXPECT_EQ(row.status, core::OutboxStatus::kShadow) << row.channel;
  }
  EXPECT_EQ(store_.state().incidents.at("a").status, core::IncidentStatus::kOpen);
}

TEST_F(PollApplierTest, RowsPastATenantsHourlyBudgetAreFoldedIntoOneDigest) {
  options_.channels = {"ops"};
  options_.tenant_budget_per_hour = 2;
  auto summary = Apply({Obs(0, "acme:a", Health::kUnhealthy), Obs(0, "acme:b", Health::kUnhealthy),
                        Obs(0, "acme:c", Health::kUnhealthy), Obs(0, "acme:d", Health::kUnhealthy),
                        Obs(0, "beta:e", Health::kUnhealthy)});
  ASSERT_TRUE(summary.ok());
  std::map<core::OutboxStatus, std::vector<std::string>> by_status;
  for (const auto& [id, row] : store_.state().outbox) by_status[row.status].push_back(row.key);
  for (auto& [status, keys] : by_status) std::sort(keys.begin(), keys.end());
  // Two of acme's opens go out, two are folded; beta has its own budget; one digest for acme.
  EXPECT_EQ(by_status[core::OutboxStatus::kFolded], (std::vector<std::string>{"acme:c", "acme:d"}));
  EXPECT_EQ(
      by_status[core::OutboxStatus::kPending],
      (std::vector<std::string>{"acme:a", "acme:b", "beta:e", "{digest}:acme"}));  // byte order
  for (const auto& [id, row] : store_.state().outbox) {
    if (row.key == "{digest}:acme") {
      EXPECT_EQ(row.next_attempt_at, core::HourWindow(At(1000)).end);
    }
  }

  // A later poll in the same hour is still over budget, and adds no second digest.
  PollApplier again(store_, payload_, options_);
  VectorStream stream({Obs(1, "acme:z", Health::kUnhealthy)});
  ASSERT_TRUE(again.Apply(stream, "p2", At(1001), sink_).ok());
  size_t digests = 0;
  for (const auto& [id, row] : store_.state().outbox) {
    if (row.key == "acme:z") {
      EXPECT_EQ(row.status, core::OutboxStatus::kFolded);
    }
    if (core::IsDigestKey(row.key)) ++digests;
  }
  EXPECT_EQ(digests, 1u);
}

TEST_F(PollApplierTest, UnchangedKeysAreCountedButNeverWritten) {
  auto summary = Apply({Obs(0, "a", Health::kHealthy), Obs(0, "b", Health::kUnknown)});
  ASSERT_TRUE(summary.ok());
  EXPECT_TRUE(store_.state().incidents.empty());
  EXPECT_TRUE(store_.state().decisions.empty());
  EXPECT_FALSE(summary->poll_recorded) << "a generated poll id that changed nothing leaves no row";
  EXPECT_EQ(summary->poll.observations, 2u);
}

TEST_F(PollApplierTest, LostRaceReReadsAndReEvaluatesWithoutASecondNotify) {
  // Another writer opens "a" first; our chunk must see it and decide update_only, not notify.
  store_.FailNextPut(1, core::ErrorCode::kConflict, [](testing::FakeIncidentStore::State& s) {
    core::Incident winner;
    core::Policy policy;
    (void)core::Evaluate(winner, Obs(0, "a", Health::kUnhealthy), policy);
    s.incidents["a"] = winner;
    core::OutboxRow row;
    row.idempotency_key = core::OutboxIdempotencyKey("a", 1, 1, "default");
    s.outbox[row.idempotency_key] = row;
  });
  auto summary = Apply({Obs(1, "a", Health::kUnhealthy)});
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->chunk_retries, 1u);
  EXPECT_EQ(sink_.kinds, std::vector<DecisionKind>{DecisionKind::kUpdateOnly});
  EXPECT_EQ(store_.state().outbox.size(), 1u);
  EXPECT_EQ(store_.state().incidents["a"].version, 2u);
}

TEST_F(PollApplierTest, GivesUpWithConflictAfterTheChunkAttempts) {
  options_.max_chunk_attempts = 3;
  options_.max_batch_attempts = 1;
  store_.FailNextPut(10, core::ErrorCode::kConflict);
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy)});
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.error().code, core::ErrorCode::kConflict);
  EXPECT_EQ(store_.puts(), 3);
  EXPECT_TRUE(store_.state().incidents.empty());
}

TEST_F(PollApplierTest, RetriesTheWholeBatchWhenTheCommitIsLost) {
  store_.FailNextCommit(1, core::ErrorCode::kConflict);
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy), Obs(1, "b", Health::kUnhealthy)});
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->batch_attempts, 2u);
  EXPECT_EQ(store_.begins(), 2);
  EXPECT_EQ(sink_.resets, 1);
  EXPECT_EQ(sink_.kinds.size(), 2u) << "the sink holds the retried batch only";
  EXPECT_EQ(store_.state().outbox.size(), 2u);
}

TEST_F(PollApplierTest, CannotRetryAnInputThatCannotBeReadAgain) {
  store_.FailNextCommit(1, core::ErrorCode::kConflict);
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy)}, /*rewindable=*/false);
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.error().message.find("cannot retry"), std::string::npos);
  EXPECT_TRUE(store_.state().incidents.empty());
}

TEST_F(PollApplierTest, ATransactionCutByALostStoreIsRunOnceMoreWhole) {
  store_.FailNextPut(1, core::ErrorCode::kUnavailable);
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy)});
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->batch_attempts, 2u);
  EXPECT_EQ(store_.begins(), 2);
  EXPECT_EQ(store_.state().outbox.size(), 1u);
}

TEST_F(PollApplierTest, AStoreStillDownAfterItsOneRetryIsReported) {
  store_.FailNextPut(2, core::ErrorCode::kUnavailable);
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy)});
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.error().code, core::ErrorCode::kUnavailable);
  EXPECT_EQ(store_.begins(), 2);
  EXPECT_TRUE(store_.state().incidents.empty());
}

TEST_F(PollApplierTest, AKeySpanningChunksSeesItsOwnEarlierWrites) {
  options_.chunk_observations = 1;
  options_.policy.healthy_polls_to_close = 2;
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy), Obs(1, "a", Health::kHealthy),
                        Obs(2, "a", Health::kHealthy), Obs(3, "a", Health::kUnhealthy)});
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(sink_.kinds,
            (std::vector<DecisionKind>{DecisionKind::kNotify, DecisionKind::kWaitForHealth,
                                       DecisionKind::kResolve, DecisionKind::kNotify}));
  EXPECT_EQ(store_.state().incidents["a"].generation, 2u);
  EXPECT_EQ(store_.state().outbox.size(), 3u);
}

TEST_F(PollApplierTest, PrunesTheDecisionLogByRetention) {
  options_.decision_retention = std::chrono::minutes(500);
  auto summary = Apply({Obs(0, "old", Health::kUnhealthy), Obs(900, "new", Health::kUnhealthy)});
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->decisions_pruned, 1u);
  EXPECT_EQ(store_.state().decisions.size(), 1u);
}

TEST_F(PollApplierTest, AChosenPollIdRecordedBeforeRollsTheWholeApplyBack) {
  options_.record_unchanged_poll = true;
  options_.roll_back_recorded_poll = true;
  auto first = Apply({Obs(0, "a", Health::kUnhealthy)});
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->duplicate);
  EXPECT_EQ(store_.state().outbox.size(), 1u);
  // The same poll id again, other observations: nothing of it stays, marks included.
  options_.source_marks = {{"push:mark", "x"}};
  auto again = Apply({Obs(1, "b", Health::kUnhealthy), Obs(1, "a", Health::kHealthy)});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->duplicate);
  EXPECT_EQ(store_.state().outbox.size(), 1u);
  EXPECT_EQ(store_.state().incidents.count("b"), 0u);
  EXPECT_EQ(store_.state().incidents.at("a").healthy_streak, 0u);
  EXPECT_EQ(store_.state().marks.count("push:mark"), 0u);
  EXPECT_EQ(store_.state().polls.size(), 1u);
}

TEST_F(PollApplierTest, WritesTheSourceMarksWhenThePollCommits) {
  options_.source_marks = {{"errors:listing", "t1"}, {"errors:cursor", "c9"}};
  // A poll that changes nothing, even an empty one, still moves its marks: it was complete.
  ASSERT_TRUE(Apply({Obs(0, "a", Health::kHealthy)}).ok());
  EXPECT_EQ(store_.state().marks.at("errors:listing").value, "t1");
  EXPECT_EQ(store_.state().marks.at("errors:listing").updated_at, At(1000));
  EXPECT_EQ(store_.state().marks.at("errors:cursor").value, "c9");
  options_.source_marks = {{"errors:listing", "t2"}};
  ASSERT_TRUE(Apply({}).ok());
  EXPECT_EQ(store_.state().marks.at("errors:listing").value, "t2");
  EXPECT_EQ(store_.state().marks.at("errors:cursor").value, "c9") << "a mark not given stays";
}

TEST_F(PollApplierTest, AFailedCommitLeavesTheOldMark) {
  store_.state().marks["errors:listing"] = {"old", At(0)};
  options_.source_marks = {{"errors:listing", "new"}};
  store_.FailNextCommit(2, core::ErrorCode::kUnavailable);  // the attempt and its one retry
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy)});
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(store_.state().marks.at("errors:listing").value, "old");
  EXPECT_TRUE(store_.state().incidents.empty());
}

TEST_F(PollApplierTest, ARetriedBatchWritesTheMarkWithTheAttemptThatCommits) {
  store_.state().marks["errors:listing"] = {"old", At(0)};
  options_.source_marks = {{"errors:listing", "new"}};
  store_.FailNextCommit(1, core::ErrorCode::kConflict);
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy)});
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->batch_attempts, 2u);
  EXPECT_EQ(store_.state().marks.at("errors:listing").value, "new");
  EXPECT_EQ(*store_.GetSourceMark("errors:listing"), std::optional<std::string>("new"));
}

TEST_F(PollApplierTest, AFencedPollChecksItsTokenBeforeTheMarksAndCommits) {
  options_.source_marks = {{"errors:listing", "t1"}};
  options_.fence = Fence{"poll/src/1m0s", 7};
  std::vector<std::pair<std::string, uint64_t>> checked;
  store_.fence = [&](std::string_view lease, uint64_t token, core::WallTime at) -> core::Status {
    EXPECT_EQ(at, At(1000));
    checked.emplace_back(std::string(lease), token);
    return {};
  };
  ASSERT_TRUE(Apply({Obs(0, "a", Health::kUnhealthy)}).ok());
  ASSERT_EQ(checked.size(), 1u);
  EXPECT_EQ(checked[0], std::make_pair(std::string("poll/src/1m0s"), uint64_t{7}));
  ASSERT_EQ(store_.fence_calls().size(), 1u);
  EXPECT_EQ(store_.fence_calls()[0].marks_written_before, 0u) << "the fence comes first";
  EXPECT_EQ(store_.state().marks.at("errors:listing").value, "t1");
  EXPECT_EQ(store_.state().incidents.size(), 1u);
}

TEST_F(PollApplierTest, AFencedPollWhoseLeaseWasTakenCommitsNothingAndIsNotRetried) {
  store_.state().marks["errors:listing"] = {"old", At(0)};
  options_.source_marks = {{"errors:listing", "new"}};
  options_.fence = Fence{"poll/src/1m0s", 7};
  store_.fence = [](std::string_view, uint64_t, core::WallTime) -> core::Status {
    return core::MakeError(core::ErrorCode::kConflict,
                           "fenced: lease poll/src/1m0s was taken over (token 7 is no longer "
                           "current)");
  };
  auto summary = Apply({Obs(0, "a", Health::kUnhealthy)});
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.error().code, core::ErrorCode::kConflict);
  EXPECT_TRUE(summary.error().message.starts_with("fenced: lease poll/src/1m0s"))
      << summary.error().message;
  EXPECT_EQ(store_.begins(), 1) << "a newer holder polls: no second attempt";
  EXPECT_TRUE(store_.state().incidents.empty());
  EXPECT_TRUE(store_.state().outbox.empty());
  EXPECT_EQ(store_.state().marks.at("errors:listing").value, "old");
}

TEST_F(PollApplierTest, AnUnfencedPollNeverAsksTheLease) {
  ASSERT_TRUE(Apply({Obs(0, "a", Health::kUnhealthy)}).ok());
  EXPECT_TRUE(store_.fence_calls().empty());
}

TEST_F(PollApplierTest, RecordsKeyGroupsInSlicesWithThePollAndOnlyWhenItCommits) {
  options_.chunk_observations = 2;
  options_.key_groups = {{"a", "g1"}, {"a", "g2"}, {"b", "g3"}, {"c", "g1"}, {"d", "g4"}};
  store_.FailNextCommit(2, core::ErrorCode::kUnavailable);
  ASSERT_FALSE(Apply({Obs(0, "a", Health::kUnhealthy)}).ok());
  EXPECT_TRUE(store_.state().key_groups.empty()) << "a failed commit records no pair";

  ASSERT_TRUE(Apply({Obs(0, "a", Health::kUnhealthy)}).ok());
  const auto& rows = store_.state().key_groups;
  ASSERT_EQ(rows.size(), 5U);
  EXPECT_EQ(rows.at({"a", "g1"}).polls, 1U);
  EXPECT_EQ(rows.at({"d", "g4"}).last_seen_at, At(1000));
}

// A silence begun after a group told an incident's open: the incident's resolve joins the
// group all the same, so the group's next message counts it resolved instead of open for good.
// A key whose open the silence kept from the group has its resolve cancelled, never sent.
TEST_F(PollApplierTest, ASilencedResolveJoinsTheGroupThatToldItsOpen) {
  options_.policy.healthy_polls_to_close = 1;
  options_.grouping.emplace("default", core::GroupPolicy{.group_by = {"condition", "tenant"}});
  const auto seen = [](int minute, const std::string& key, Health health) {
    core::Observation o = Obs(minute, key, health);
    o.condition = "answers";
    o.labels = {{"tenant", "acme"}};
    return o;
  };
  ASSERT_TRUE(Apply({seen(0, "told", Health::kUnhealthy)}).ok());
  core::Silence silence;
  silence.pattern = "*";
  silence.expires_at = At(5000);
  store_.state().silences.push_back(silence);
  ASSERT_TRUE(Apply({seen(1, "quiet", Health::kUnhealthy)}).ok());
  auto summary = Apply({seen(2, "told", Health::kHealthy), seen(2, "quiet", Health::kHealthy)});
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  std::map<std::string, core::OutboxRow> resolves;
  for (const auto& [id, row] : store_.state().outbox) {
    if (row.transition == core::TransitionKind::kResolve) resolves[row.key] = row;
  }
  ASSERT_EQ(resolves.size(), 2u);
  EXPECT_EQ(resolves["told"].status, core::OutboxStatus::kGrouped);
  EXPECT_EQ(resolves["told"].group_key, "condition=answers,tenant=acme");
  EXPECT_EQ(resolves["quiet"].status, core::OutboxStatus::kCancelled);
  EXPECT_TRUE(resolves["quiet"].group_key.empty());
  EXPECT_EQ(summary->outbox_silenced, 0u);
  // Anything else under the silence stays silenced: only the end of a told open is told.
  store_.state().outbox.clear();
  ASSERT_TRUE(Apply({seen(3, "again", Health::kUnhealthy)}).ok());
  EXPECT_EQ(store_.state().outbox.begin()->second.status, core::OutboxStatus::kSilenced);
}

// Inhibition: an open "provider" incident of tenant acme holds acme's incidents.
class InhibitionApplierTest : public PollApplierTest {
 protected:
  void SetUp() override {
    options_.channels = {"chat"};
    options_.inhibited_by = {{"provider-down", {"tenant"}}};
    core::Incident provider;
    provider.key = "acme:provider";
    provider.condition = "provider-down";
    provider.labels = {{"tenant", "acme"}};
    provider.status = core::IncidentStatus::kOpen;
    provider.generation = 1;
    provider.version = 1;
    store_.state().incidents.emplace(provider.key, provider);
  }
  static core::Observation Acme(int minute, const std::string& key, Health health) {
    core::Observation o = Obs(minute, key, health);
    o.condition = "answers";
    o.labels = {{"tenant", "acme"}};
    return o;
  }
  std::map<std::string, core::OutboxStatus> StatusByKey() {
    std::map<std::string, core::OutboxStatus> out;
    for (const auto& [id, row] : store_.state().outbox) out[row.key] = row.status;
    return out;
  }
};

// A zone at UTC that knows every name: enough for a window open (almost) all day, every day.
class UtcZones : public core::ZoneRules {
 public:
  core::Status CheckZone(std::string_view) const override { return {}; }
  core::Result<core::LocalTime> ToLocal(std::string_view, core::WallTime at) const override {
    return core::LocalTime{at.time_since_epoch()};
  }
  core::Result<core::WallTime> ToUtc(std::string_view, core::LocalTime local) const override {
    return core::WallTime{local.time_since_epoch()};
  }
};

TEST_F(InhibitionApplierTest, ShadowThenSilenceWinOverInhibitionWhichWinsOverAWindow) {
  UtcZones zones;
  core::MaintenanceWindow all_day;
  all_day.name = "always";
  all_day.keys = "acme:window*";
  all_day.time_zone = "UTC";
  all_day.weekdays.fill(true);
  all_day.times.push_back(*core::ParseTimeRange("00:00-23:59"));
  options_.maintenance = {all_day};
  options_.zones = &zones;
  core::Silence silence;
  silence.pattern = "acme:silenced*";
  silence.expires_at = At(5000);
  store_.state().silences.push_back(silence);
  core::Observation elsewhere = Obs(0, "globex:answers", Health::kUnhealthy);
  elsewhere.labels = {{"tenant", "globex"}};
  auto summary = Apply({Acme(0, "acme:answers", Health::kUnhealthy),
                        Acme(0, "acme:silenced", Health::kUnhealthy),
                        Acme(0, "acme:window", Health::kUnhealthy), elsewhere});
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->outbox_inhibited, 2u);
  const auto status = StatusByKey();
  EXPECT_EQ(status.at("acme:answers"), core::OutboxStatus::kInhibited);
  EXPECT_EQ(status.at("acme:silenced"), core::OutboxStatus::kSilenced);
  EXPECT_EQ(status.at("acme:window"), core::OutboxStatus::kInhibited);
  EXPECT_EQ(status.at("globex:answers"), core::OutboxStatus::kPending);

  store_.state().outbox.clear();
  store_.state().incidents.erase("acme:answers");
  options_.shadow = true;
  ASSERT_TRUE(Apply({Acme(0, "acme:answers", Health::kUnhealthy)}).ok());
  EXPECT_EQ(StatusByKey().at("acme:answers"), core::OutboxStatus::kShadow);
}

TEST_F(InhibitionApplierTest, AnEmptyEqualListHoldsEveryIncidentWhileAnyInhibitorIsOpen) {
  options_.inhibited_by = {{"provider-down", {}}};
  core::Observation other = Obs(0, "globex:answers", Health::kUnhealthy);
  other.labels = {{"tenant", "globex"}};
  ASSERT_TRUE(Apply({other, Obs(0, "unlabelled", Health::kUnhealthy)}).ok());
  for (const auto& [key, status] : StatusByKey()) {
    EXPECT_EQ(status, core::OutboxStatus::kInhibited) << key;
  }
}

// Leaving shadow mode while the inhibitor is open: the late open waits for the inhibitor, and is
// sent once it lets go, naming it.
TEST_F(InhibitionApplierTest, ALateShadowOpenWaitsForTheInhibitor) {
  options_.shadow = true;
  ASSERT_TRUE(Apply({Acme(0, "acme:answers", Health::kUnhealthy)}).ok());
  options_.shadow = false;
  options_.announce_shadow_opens = true;
  auto held = Apply({Acme(1, "acme:answers", Health::kUnhealthy)});
  ASSERT_TRUE(held.ok()) << held.error().message;
  EXPECT_EQ(held->late_opens, 0u);
  EXPECT_EQ(store_.state().outbox.size(), 1u);  // the shadow open only
}

}  // namespace
}  // namespace quell::app
