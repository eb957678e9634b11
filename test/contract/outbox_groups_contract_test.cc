// Grouped notifications in the store (OutboxStore::WaitingGroups, AssembleGroup, GroupMembers
// and TrimOutbox's rule for grouped rows), on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "outbox_test_support.h"
#include "quell/core/delivery/group_plan.h"
#include "quell/core/delivery/grouping.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::OutboxStatus;
using core::TransitionKind;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr core::Duration kWait = seconds(30);
constexpr core::Duration kInterval = minutes(5);
const char* const kGroup = "condition=model-answer";

core::OutboxRow Member(const std::string& key, uint64_t generation, uint64_t version,
                       TransitionKind transition, core::WallTime at,
                       const std::string& group = kGroup) {
  core::OutboxRow row = PendingRow(key, generation, version, "ops", at);
  row.transition = transition;
  row.status = OutboxStatus::kGrouped;
  row.group_key = group;
  return row;
}

class OutboxGroupsTest : public StoreTest {
 protected:
  void SetUpStore() override {
    Connect(a_);
    Connect(b_);
  }

  void Insert(const std::vector<core::OutboxRow>& rows) {
    ASSERT_EQ(InsertRows(store_->incidents(), rows), "");
  }

  std::optional<core::OutboxRow> Assemble(core::OutboxStore& store, core::WallTime now,
                                          const std::string& group = kGroup) {
    auto built = store.AssembleGroup("ops", group, now, core::GroupPlannerFor(kWait, kInterval));
    EXPECT_TRUE(built.ok()) << built.error().message;
    return built.ok() ? *built : std::nullopt;
  }

  std::vector<std::string> MemberKeys(const core::OutboxRow& group) {
    auto members = store_->outbox().GroupMembers(group.idempotency_key);
    EXPECT_TRUE(members.ok()) << members.error().message;
    std::vector<std::string> keys;
    if (!members.ok()) return keys;
    for (const auto& m : *members) {
      keys.push_back(m.key + "/" + core::TransitionName(m.transition));
    }
    return keys;
  }

  std::vector<core::WaitingGroup> Waiting() {
    auto waiting = store_->outbox().WaitingGroups();
    EXPECT_TRUE(waiting.ok()) << waiting.error().message;
    return waiting.ok() ? *waiting : std::vector<core::WaitingGroup>{};
  }

  void Send(const core::OutboxRow& group, core::WallTime now) {
    auto claimed = store_->outbox().ClaimDue("d1", now, seconds(60), 10);
    ASSERT_TRUE(claimed.ok()) << claimed.error().message;
    ASSERT_EQ(claimed->size(), 1u);
    ASSERT_EQ((*claimed)[0].idempotency_key, group.idempotency_key);
    core::OutboxOutcome sent;
    sent.kind = core::OutboxOutcome::Kind::kSent;
    sent.idempotency_key = group.idempotency_key;
    auto recorded = store_->outbox().RecordOutcomes("d1", std::vector{sent}, now);
    ASSERT_TRUE(recorded.ok()) << recorded.error().message;
  }

  std::optional<core::Store> a_;
  std::optional<core::Store> b_;
};

TEST_P(OutboxGroupsTest, WaitingMembersAreNeverClaimedOnTheirOwn) {
  const core::WallTime t0 = OutboxEpoch();
  Insert({Member("t1:c", 1, 1, TransitionKind::kOpen, t0),
          Member("t2:c", 1, 1, TransitionKind::kOpen, t0 + seconds(5)),
          Member("t3:c", 1, 1, TransitionKind::kOpen, t0, "condition=other")});
  auto claimed = store_->outbox().ClaimDue("d1", t0 + minutes(60), seconds(60), 100);
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  EXPECT_TRUE(claimed->empty());

  const auto waiting = Waiting();
  ASSERT_EQ(waiting.size(), 2u);
  EXPECT_EQ(waiting[0].group_key, "condition=model-answer");
  EXPECT_EQ(waiting[0].channel, "ops");
  EXPECT_EQ(waiting[0].first_waiting, t0);
  EXPECT_FALSE(waiting[0].last_message_at.has_value());
  EXPECT_EQ(waiting[1].group_key, "condition=other");

  auto counts = store_->incidents().CountOutboxByStatus();
  ASSERT_TRUE(counts.ok()) << counts.error().message;
  EXPECT_EQ((*counts)["grouped"], 3u);
  auto listed = store_->incidents().ListOutbox(OutboxStatus::kGrouped);
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  EXPECT_EQ(listed->size(), 3u);
}

TEST_P(OutboxGroupsTest, AGroupIsBuiltOnceDueWithEveryWaitingMemberInCommitOrder) {
  const core::WallTime t0 = OutboxEpoch();
  Insert({Member("t2:c", 1, 1, TransitionKind::kOpen, t0 + seconds(1)),
          Member("t1:c", 1, 1, TransitionKind::kOpen, t0),
          Member("t3:c", 4, 9, TransitionKind::kResolve, t0 + seconds(2))});
  EXPECT_FALSE(Assemble(store_->outbox(), t0 + seconds(29)).has_value());  // group_wait holds
  EXPECT_EQ(Waiting().size(), 1u);

  const auto group = Assemble(store_->outbox(), t0 + seconds(30));
  ASSERT_TRUE(group.has_value());
  EXPECT_EQ(group->key, "{group}:condition=model-answer");
  EXPECT_EQ(group->generation, 1u);
  EXPECT_EQ(group->transition, TransitionKind::kOpen);
  EXPECT_EQ(group->idempotency_key,
            core::OutboxIdempotencyKey("{group}:condition=model-answer", 1, 1, "ops"));
  EXPECT_NE(group->payload.find("\"open_after\":2"), std::string::npos) << group->payload;
  EXPECT_EQ(MemberKeys(*group),
            (std::vector<std::string>{"t1:c/open", "t2:c/open", "t3:c/resolve"}));
  EXPECT_TRUE(Waiting().empty());
  // Nothing is left to build: a second assembler changes nothing.
  EXPECT_FALSE(Assemble(store_->outbox(), t0 + minutes(60)).has_value());
  auto claimed = store_->outbox().ClaimDue("d1", t0 + seconds(30), seconds(60), 100);
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].idempotency_key, group->idempotency_key);
}

TEST_P(OutboxGroupsTest, TheNextMessageWaitsForGroupIntervalAndCountsWhatIsStillOpen) {
  const core::WallTime t0 = OutboxEpoch();
  Insert({Member("t1:c", 1, 1, TransitionKind::kOpen, t0),
          Member("t2:c", 1, 1, TransitionKind::kOpen, t0)});
  const auto first = Assemble(store_->outbox(), t0 + seconds(30));
  ASSERT_TRUE(first.has_value());

  // t1 renotifies and t2 resolves a minute later: folded into the next message, due at the
  // previous one + group_interval.
  Insert({Member("t1:c", 1, 2, TransitionKind::kRenotify, t0 + minutes(1)),
          Member("t2:c", 1, 3, TransitionKind::kResolve, t0 + minutes(1))});
  const auto waiting = Waiting();
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting[0].last_message_at, t0 + seconds(30));
  EXPECT_FALSE(Assemble(store_->outbox(), t0 + minutes(5)).has_value());
  const auto second = Assemble(store_->outbox(), t0 + seconds(30) + minutes(5));
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->generation, 2u);
  EXPECT_EQ(second->transition, TransitionKind::kRenotify);
  EXPECT_NE(second->payload.find("\"open_after\":1"), std::string::npos) << second->payload;
  EXPECT_EQ(MemberKeys(*second), (std::vector<std::string>{"t1:c/renotify", "t2:c/resolve"}));

  Insert({Member("t1:c", 1, 3, TransitionKind::kResolve, t0 + minutes(7))});
  const auto third = Assemble(store_->outbox(), t0 + minutes(11));
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->generation, 3u);
  EXPECT_EQ(third->transition, TransitionKind::kResolve);
  EXPECT_NE(third->payload.find("\"open_after\":0"), std::string::npos) << third->payload;
}

TEST_P(OutboxGroupsTest, TwoStoresAssemblingOneGroupBuildOneMessageWithEveryMemberOnce) {
  const core::WallTime t0 = OutboxEpoch();
  for (int round = 0; round < 5; ++round) {
    const core::WallTime at = t0 + minutes(10) * round;
    std::vector<core::OutboxRow> members;
    for (int i = 0; i < 200; ++i) {
      members.push_back(Member("t" + std::to_string(i) + ":c", static_cast<uint64_t>(round) + 1, 1,
                               TransitionKind::kOpen, at));
    }
    Insert(members);
    std::optional<core::OutboxRow> built_a;
    std::optional<core::OutboxRow> built_b;
    std::thread other([&] { built_b = Assemble(b_->outbox(), at + minutes(1)); });
    built_a = Assemble(a_->outbox(), at + minutes(1));
    other.join();
    ASSERT_NE(built_a.has_value(), built_b.has_value()) << "round " << round;
    const core::OutboxRow& group = built_a ? *built_a : *built_b;
    EXPECT_EQ(group.generation, static_cast<uint64_t>(round) + 1);
    EXPECT_EQ(MemberKeys(group).size(), 200u);
    EXPECT_TRUE(Waiting().empty());
  }
  auto groups = store_->incidents().ListOutbox(OutboxStatus::kPending);
  ASSERT_TRUE(groups.ok()) << groups.error().message;
  EXPECT_EQ(groups->size(), 5u);
}

TEST_P(OutboxGroupsTest, ABuiltMessageIsNeverBuiltAgainEvenWhenItsSequenceIsTaken) {
  const core::WallTime t0 = OutboxEpoch();
  // A row with the first message's idempotency key already exists: the insert conflicts and
  // the whole assembly rolls back, leaving the members waiting.
  Insert({core::MakeGroupRow("ops", kGroup, 1, TransitionKind::kOpen, 0, t0),
          Member("t1:c", 1, 1, TransitionKind::kOpen, t0)});
  EXPECT_FALSE(Assemble(store_->outbox(), t0 + minutes(1)).has_value());
  EXPECT_EQ(Waiting().size(), 1u);
}

TEST_P(OutboxGroupsTest, RetentionKeepsWaitingMembersAndMembersOfAnUnsentGroup) {
  const core::WallTime t0 = OutboxEpoch();
  Insert({Member("t1:c", 1, 1, TransitionKind::kOpen, t0),
          Member("t2:c", 1, 1, TransitionKind::kOpen, t0, "condition=later")});
  const auto group = Assemble(store_->outbox(), t0 + minutes(1));
  ASSERT_TRUE(group.has_value());
  const core::WallTime late = t0 + std::chrono::hours(24 * 30);
  auto trimmed = store_->outbox().TrimOutbox(late, 100);
  ASSERT_TRUE(trimmed.ok()) << trimmed.error().message;
  EXPECT_EQ(*trimmed, 0u);  // one member waits, the other's group is unsent

  Send(*group, t0 + minutes(2));
  trimmed = store_->outbox().TrimOutbox(late, 100);
  ASSERT_TRUE(trimmed.ok()) << trimmed.error().message;
  EXPECT_EQ(*trimmed, 1u);  // the sent group row; its member goes once the row is gone
  trimmed = store_->outbox().TrimOutbox(late, 100);
  ASSERT_TRUE(trimmed.ok()) << trimmed.error().message;
  EXPECT_EQ(*trimmed, 1u);
  auto left = store_->incidents().ListOutbox(std::nullopt);
  ASSERT_TRUE(left.ok()) << left.error().message;
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].key, "t2:c");  // still waiting
}

// The port's shape: the store reads the group's facts inside its transaction and persists
// exactly what the planner decided; a planner that decides nothing leaves everything as it was.
TEST_P(OutboxGroupsTest, TheStoreHandsThePlannerTheFactsAndPersistsOnlyWhatItDecides) {
  const core::WallTime t0 = OutboxEpoch();
  Insert({Member("t1:c", 1, 1, TransitionKind::kOpen, t0),
          Member("t2:c", 1, 1, TransitionKind::kOpen, t0)});
  const auto first = Assemble(store_->outbox(), t0 + seconds(30));
  ASSERT_TRUE(first.has_value());
  Send(*first, t0 + seconds(31));
  Insert({Member("t2:c", 1, 2, TransitionKind::kResolve, t0 + minutes(2)),
          Member("t3:c", 2, 5, TransitionKind::kRenotify, t0 + minutes(1)),
          Member("t4:c", 1, 1, TransitionKind::kOpen, t0 + minutes(9))});  // not ready yet

  std::vector<core::GroupFacts> seen;
  const auto decline = [&](const core::GroupFacts& facts) {
    seen.push_back(facts);
    return std::optional<core::GroupMessage>{};
  };
  const core::WallTime at = t0 + minutes(8);
  auto declined = store_->outbox().AssembleGroup("ops", kGroup, at, decline);
  ASSERT_TRUE(declined.ok()) << declined.error().message;
  EXPECT_FALSE(declined->has_value());
  ASSERT_EQ(seen.size(), 1u);
  const core::GroupFacts& facts = seen[0];
  EXPECT_EQ(facts.channel, "ops");
  EXPECT_EQ(facts.group_key, kGroup);
  EXPECT_EQ(facts.at, at);
  EXPECT_EQ(facts.first_waiting, t0 + minutes(1));
  const auto text = [](const std::vector<core::GroupMemberFact>& members) {
    std::vector<std::string> out;
    for (const auto& m : members) {
      out.push_back(m.key + "/" + std::to_string(m.generation) + "." + std::to_string(m.version) +
                    "/" + core::TransitionName(m.transition));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(text(facts.ready), (std::vector<std::string>{"t2:c/1.2/resolve", "t3:c/2.5/renotify"}));
  EXPECT_EQ(facts.ready.front().key, "t3:c") << "earliest ready first";
  EXPECT_EQ(text(facts.taken), (std::vector<std::string>{"t1:c/1.1/open", "t2:c/1.1/open"}));
  ASSERT_TRUE(facts.state.has_value());
  EXPECT_EQ(facts.state->last_sequence, 1u);
  EXPECT_EQ(facts.state->last_message_at, t0 + seconds(30));
  EXPECT_EQ(facts.state->episode, std::optional<uint64_t>(1));
  ASSERT_EQ(Waiting().size(), 1u) << "a declined plan leaves every member waiting";

  // Whatever the planner decides is what the store keeps: here a message due later than the
  // core would make it, with a state the store must not second-guess.
  auto planned = core::PlanGroupMessage(facts, core::GroupPolicy{.group_by = {"condition"},
                                                                 .group_wait = seconds(0),
                                                                 .group_interval = seconds(0)});
  ASSERT_TRUE(planned.has_value());
  planned->row.next_attempt_at = at + minutes(3);
  planned->state_after.last_message_at = at + minutes(3);
  auto built = store_->outbox().AssembleGroup("ops", kGroup, at,
                                              [&](const core::GroupFacts&) { return planned; });
  ASSERT_TRUE(built.ok()) << built.error().message;
  ASSERT_TRUE(built->has_value());
  EXPECT_EQ((*built)->kind, core::OutboxRowKind::kGroup);
  EXPECT_EQ((*built)->generation, 2u);
  EXPECT_EQ(MemberKeys(**built), (std::vector<std::string>{"t3:c/renotify", "t2:c/resolve"}));
  const auto waiting = Waiting();
  ASSERT_EQ(waiting.size(), 1u);  // t4, not ready when the facts were read
  EXPECT_EQ(waiting[0].last_message_at, at + minutes(3));
  auto claimed = store_->outbox().ClaimDue("d1", at + minutes(2), seconds(60), 100);
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  EXPECT_TRUE(claimed->empty()) << "due when the plan said, not before";
  claimed = store_->outbox().ClaimDue("d1", at + minutes(3), seconds(60), 100);
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed)[0].kind, core::OutboxRowKind::kGroup);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, OutboxGroupsTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, OutboxGroupsTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
