#include "quell/app/operator_commands.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <memory>

#include "fake_incident_store.h"
#include "fake_operator_store.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"

namespace quell::app {
namespace {

using core::OutboxStatus;
using std::chrono::hours;
using std::chrono::minutes;

core::WallTime At(int minute) { return core::WallTime(minutes(29'000'000 + minute)); }

class FixedPayload : public core::PayloadEncoder {
 public:
  void Encode(const core::Incident& in, core::TransitionKind t, std::string& out) const override {
    out = in.key + ":" + core::TransitionName(t);
  }
};

class NullSink : public DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision&) override {}
  void Reset() override {}
};

class OperatorCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    core::Incident in;
    in.key = "acme:db";
    in.condition = "db";
    in.generation = 3;
    in.status = core::IncidentStatus::kOpen;
    in.version = 7;
    in.last_observed_at = At(0);
    store_.state().incidents[in.key] = in;
    ops_store_.uses["acme:db#3"] = {{"slack", false}, {"trial", true}};
  }

  std::vector<core::OutboxRow> Rows() { return *store_.ListOutbox(std::nullopt); }

  testing::FakeIncidentStore store_;
  testing::FakeOperatorStore ops_store_;
  FixedPayload payload_;
  OperatorCommands ops_{store_, ops_store_, payload_};
};

TEST_F(OperatorCommandsTest, ResolveWritesTheIncidentADecisionAndARowPerChannelOfTheGeneration) {
  auto resolved = ops_.Resolve("acme:db", "alice", At(5));
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  const core::Incident& stored = store_.state().incidents.at("acme:db");
  EXPECT_EQ(stored.status, core::IncidentStatus::kResolved);
  EXPECT_EQ(stored.version, 8u);
  ASSERT_EQ(store_.state().decisions.size(), 1u);
  const core::DecisionRecord& d = store_.state().decisions.begin()->second;
  EXPECT_EQ(d.kind, core::DecisionKind::kResolve);
  EXPECT_EQ(d.reason, core::Reason::kManual);
  EXPECT_EQ(d.version, 8u);
  EXPECT_EQ(d.at, At(5));

  const auto rows = Rows();
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.transition, core::TransitionKind::kResolve);
    EXPECT_EQ(row.payload, "acme:db:resolve");
    EXPECT_EQ(row.idempotency_key, core::OutboxIdempotencyKey("acme:db", 3, 8, row.channel));
    EXPECT_EQ(row.status, row.channel == "trial" ? OutboxStatus::kShadow : OutboxStatus::kPending);
    EXPECT_EQ(row.next_attempt_at, At(5));
  }
}

TEST_F(OperatorCommandsTest, ResolveUsesTheConfiguredRouteWhenThereIsOne) {
  OperatorCommands routed(store_, ops_store_, payload_,
                          [](std::string_view condition) -> std::optional<Route> {
                            EXPECT_EQ(condition, "db");
                            return Route{.channels = {"pager"}, .shadow = true};
                          });
  auto resolved = routed.Resolve("acme:db", "alice", At(5));
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  ASSERT_EQ(resolved->outbox.size(), 1u);
  EXPECT_EQ(resolved->outbox[0].channel, "pager");
  EXPECT_EQ(resolved->outbox[0].status, OutboxStatus::kShadow);
}

TEST_F(OperatorCommandsTest, ResolveOfASilencedKeyWritesSilencedRows) {
  store_.state().silences.push_back({1, "acme:*", At(60), "maint", "bob", At(0)});
  auto resolved = ops_.Resolve("acme:db", "alice", At(5));
  ASSERT_TRUE(resolved.ok());
  for (const auto& row : Rows()) {
    // The shadow-only channel stays shadow; the live one is silenced.
    EXPECT_EQ(row.status, row.channel == "slack" ? OutboxStatus::kSilenced : OutboxStatus::kShadow);
  }
}

TEST_F(OperatorCommandsTest, ResolveRetriesAfterLosingTheCompareAndSet) {
  store_.FailNextPut(1, core::ErrorCode::kConflict);
  auto resolved = ops_.Resolve("acme:db", "alice", At(5));
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_EQ(store_.puts(), 2);
  EXPECT_EQ(Rows().size(), 2u);
}

TEST_F(OperatorCommandsTest, UnknownKeysAndClosedIncidentsAreRefusedByName) {
  auto unknown = ops_.Resolve("nope", "alice", At(5));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, core::ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().message.find("\"nope\""), std::string::npos);
  ASSERT_TRUE(ops_.Resolve("acme:db", "alice", At(5)).ok());
  auto closed = ops_.Ack("acme:db", "alice", At(6));
  ASSERT_FALSE(closed.ok());
  EXPECT_EQ(closed.error().code, core::ErrorCode::kRejected);
  EXPECT_EQ(store_.state().incidents.at("acme:db").version, 8u);
}

TEST_F(OperatorCommandsTest, AckStoresWhoAndWhenAndKeepsTheFirstAck) {
  auto acked = ops_.Ack("acme:db", "alice", At(2));
  ASSERT_TRUE(acked.ok());
  auto again = ops_.Ack("acme:db", "bob", At(3));
  ASSERT_TRUE(again.ok());
  const core::Incident& stored = store_.state().incidents.at("acme:db");
  EXPECT_EQ(stored.acked_by, "alice");
  EXPECT_EQ(stored.acked_at, At(2));
  EXPECT_EQ(stored.version, 8u);
  EXPECT_TRUE(store_.state().decisions.empty());
  EXPECT_TRUE(Rows().empty());
}

TEST_F(OperatorCommandsTest, SilencesAreValidatedAndListedWhileActive) {
  auto bad =
      ops_.AddSilence(core::SilenceMatch::kGlob, "acme:*", minutes(0), "maint", "alice", At(0));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, core::ErrorCode::kInvalidArgument);
  auto no_reason =
      ops_.AddSilence(core::SilenceMatch::kGlob, "acme:*", hours(1), "", "alice", At(0));
  EXPECT_FALSE(no_reason.ok());
  EXPECT_TRUE(ops_store_.silences().empty());

  auto added =
      ops_.AddSilence(core::SilenceMatch::kGlob, "acme:*", hours(1), "maint", "alice", At(0));
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(added->expires_at, At(60));
  EXPECT_EQ(ops_.ListSilences(At(59))->size(), 1u);
  EXPECT_TRUE(ops_.ListSilences(At(60))->empty());
  ASSERT_TRUE(ops_.RemoveSilence(added->id).ok());
  EXPECT_EQ(ops_.RemoveSilence(added->id).error().code, core::ErrorCode::kNotFound);
}

TEST(PollApplierSilenceTest, RowsOfSilencedKeysAreStoredSilencedAndDecisionsStillLogged) {
  testing::FakeIncidentStore store;
  store.state().silences.push_back({1, "acme:*", At(100), "maint", "bob", At(0)});
  store.state().silences.push_back({2, "beta:*", At(1), "expired", "bob", At(0)});
  FixedPayload payload;
  ApplyOptions options;
  options.channels = {"slack", "email"};
  PollApplier applier(store, payload, options);
  std::vector<core::Observation> poll;
  for (const char* key : {"acme:db", "beta:db"}) {
    core::Observation o;
    o.key = key;
    o.at = At(10);
    o.health = core::Health::kUnhealthy;
    poll.push_back(o);
  }
  VectorObservationStream stream(poll);
  NullSink sink;
  auto applied = applier.Apply(stream, "p", At(10), sink);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(applied->outbox_silenced, 2u);
  EXPECT_EQ(store.state().decisions.size(), 2u);
  for (const auto& [id, row] : store.state().outbox) {
    EXPECT_EQ(row.status, row.key == "acme:db" ? OutboxStatus::kSilenced : OutboxStatus::kPending)
        << row.key;
  }

  // Shadow wins over a silence.
  testing::FakeIncidentStore shadow_store;
  shadow_store.state().silences = store.state().silences;
  options.shadow = true;
  PollApplier shadow(shadow_store, payload, options);
  VectorObservationStream again(poll);
  ASSERT_TRUE(shadow.Apply(again, "p", At(10), sink).ok());
  for (const auto& [id, row] : shadow_store.state().outbox) {
    EXPECT_EQ(row.status, OutboxStatus::kShadow);
  }
}

// Which groups failed under which key, from the fake store's key_groups.
class FakeKeyGroups : public core::ShadowReportStore {
 public:
  explicit FakeKeyGroups(testing::FakeIncidentStore& store) : store_(store) {}
  core::Result<std::array<uint64_t, 7>> CountDecisionsSince(core::WallTime) override {
    return std::array<uint64_t, 7>{};
  }
  core::Result<std::vector<core::KeyGroupRow>> KeyGroupsSince(core::WallTime since) override {
    std::vector<core::KeyGroupRow> out;
    for (const auto& [id, row] : store_.state().key_groups) {
      if (row.last_seen_at >= since) out.push_back(row);
    }
    return out;
  }

 private:
  testing::FakeIncidentStore& store_;
};

class FakeGroupResolver : public core::GroupResolver {
 public:
  std::vector<std::string> resolved;
  std::string fail_on;  // this id answers kUnavailable
  core::Status ResolveGroup(std::string_view id) override {
    if (id == fail_on) return core::MakeError(core::ErrorCode::kUnavailable, "HTTP 503");
    resolved.emplace_back(id);
    return {};
  }
};

class UpstreamResolveTest : public OperatorCommandsTest {
 protected:
  void SetUp() override {
    OperatorCommandsTest::SetUp();
    store_.state().incidents["acme:db"].opened_at = At(0);
    AddGroup("acme:db", "grp_1", At(1));
    AddGroup("acme:db", "grp_2", At(2));
    AddGroup("acme:db", "grp_old", At(-60));  // failed under the key before this generation
    AddGroup("beta:db", "grp_9", At(2));
    ops_.EnableUpstream(key_groups_, [this](std::string_view condition) {
      // Not owned: the fixture outlives every call.
      return condition == "db"
                 ? std::shared_ptr<core::GroupResolver>(std::shared_ptr<void>(), &resolver_)
                 : nullptr;
    });
  }
  void AddGroup(const std::string& key, const std::string& id, core::WallTime at) {
    store_.state().key_groups[{key, id}] = core::KeyGroupRow{key, id, at, at, 1};
  }
  core::Result<ResolveResult> ResolveUpstream(std::string_view key = "acme:db") {
    ResolveOptions options;
    options.upstream = true;
    return ops_.Resolve(key, "alice", At(5), options);
  }

  FakeKeyGroups key_groups_{store_};
  FakeGroupResolver resolver_;
};

TEST_F(UpstreamResolveTest, ResolvesEveryGroupOfThisGenerationThenTheIncident) {
  auto resolved = ResolveUpstream();
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  EXPECT_EQ(resolver_.resolved, (std::vector<std::string>{"grp_1", "grp_2"}));
  EXPECT_EQ(resolved->upstream_groups, (std::vector<std::string>{"grp_1", "grp_2"}));
  EXPECT_EQ(store_.state().incidents.at("acme:db").status, core::IncidentStatus::kResolved);
  EXPECT_TRUE(store_.state().incidents.at("acme:db").held);
}

TEST_F(UpstreamResolveTest, AnUpstreamFailureLeavesTheIncidentOpenAndSaysWhatWasDone) {
  resolver_.fail_on = "grp_2";
  auto resolved = ResolveUpstream();
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().code, core::ErrorCode::kUnavailable);
  EXPECT_NE(resolved.error().message.find("\"grp_2\": HTTP 503"), std::string::npos)
      << resolved.error().message;
  EXPECT_NE(resolved.error().message.find("resolved upstream already: grp_1"), std::string::npos)
      << resolved.error().message;
  EXPECT_EQ(store_.state().incidents.at("acme:db").status, core::IncidentStatus::kOpen);
  EXPECT_TRUE(Rows().empty());
}

TEST_F(UpstreamResolveTest, ASourceThatCannotResolveUpstreamIsRefusedAndNothingChanges) {
  store_.state().incidents["acme:db"].condition = "latency";  // a Prometheus condition
  auto resolved = ResolveUpstream();
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().code, core::ErrorCode::kRejected);
  EXPECT_NE(resolved.error().message.find("cannot resolve upstream"), std::string::npos)
      << resolved.error().message;
  EXPECT_TRUE(resolver_.resolved.empty());
  EXPECT_EQ(store_.state().incidents.at("acme:db").status, core::IncidentStatus::kOpen);

  OperatorCommands plain{store_, ops_store_, payload_};  // no config: upstream unknown
  ResolveOptions options;
  options.upstream = true;
  EXPECT_EQ(plain.Resolve("acme:db", "alice", At(5), options).error().code,
            core::ErrorCode::kRejected);
}

TEST_F(UpstreamResolveTest, AKeyWithNoRecordedGroupIsRefused) {
  store_.state().key_groups.clear();
  auto resolved = ResolveUpstream();
  ASSERT_FALSE(resolved.ok());
  EXPECT_NE(resolved.error().message.find("no error group is recorded"), std::string::npos);
  EXPECT_EQ(store_.state().incidents.at("acme:db").status, core::IncidentStatus::kOpen);
}

}  // namespace
}  // namespace quell::app
