// What signed callbacks need of the store (docs/http.md, "Callbacks"), on SQLite and PostgreSQL:
// remembered provider event ids (StoreTransaction::RememberCallbackEvent), the episode a group
// message belongs to (OutboxStore::AssembleGroup), and the open generations group messages
// carried (OperatorStore::OpenMembersOfMessage, OpenMembersOfGroup).
#include <gtest/gtest.h>

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

using core::IncidentGeneration;
using core::OutboxStatus;
using core::TransitionKind;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr core::Duration kWait = seconds(30);
constexpr core::Duration kInterval = minutes(5);
const char* const kGroup = "tenant=acme";

std::string Generations(const core::Result<std::vector<IncidentGeneration>>& got) {
  if (!got) return "error: " + got.error().message;
  std::string out;
  for (const IncidentGeneration& g : *got) {
    out += (out.empty() ? "" : " ") + g.key + "#" + std::to_string(g.generation);
  }
  return out;
}

class CallbackStoreTest : public StoreTest {
 protected:
  // true/false as RememberCallbackEvent answers, committed; "error" otherwise.
  std::string Remember(core::Store& store, const std::string& provider, const std::string& id,
                       core::WallTime now, core::WallTime expires_at, bool commit = true) {
    auto tx = store.incidents().Begin();
    if (!tx) return "error: " + tx.error().message;
    auto fresh = (*tx)->RememberCallbackEvent(provider, id, now, expires_at);
    if (!fresh) return "error: " + fresh.error().message;
    if (commit) {
      if (auto status = (*tx)->Commit(); !status) return "error: " + status.error().message;
    }
    return *fresh ? "new" : "duplicate";
  }

  void PutIncident(const std::string& key, uint64_t generation, bool open, core::WallTime at) {
    core::Incident in;
    in.key = key;
    in.condition = "c";
    in.generation = generation;
    in.status = open ? core::IncidentStatus::kOpen : core::IncidentStatus::kResolved;
    in.version = 1;
    in.opened_at = at;
    if (!open) in.resolved_at = at;
    auto tx = store_->incidents().Begin();
    ASSERT_TRUE(tx.ok()) << tx.error().message;
    const core::IncidentWrite writes[] = {{in, 0}};
    ASSERT_TRUE((*tx)->PutIncidents(writes).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }

  // A member row of (`channel`, `group`) waiting since `at`.
  void Join(const std::string& key, uint64_t generation, uint64_t version,
            TransitionKind transition, core::WallTime at, const std::string& channel = "pd",
            const std::string& group = kGroup) {
    core::OutboxRow row = PendingRow(key, generation, version, channel, at);
    row.transition = transition;
    row.status = OutboxStatus::kGrouped;
    row.group_key = group;
    ASSERT_EQ(InsertRows(store_->incidents(), {row}), "");
  }

  core::OutboxRow Assemble(core::WallTime now, const std::string& channel = "pd",
                           const std::string& group = kGroup) {
    auto built = store_->outbox().AssembleGroup(channel, group, now,
                                                core::GroupPlannerFor(kWait, kInterval));
    EXPECT_TRUE(built.ok()) << built.error().message;
    EXPECT_TRUE(built.ok() && built->has_value()) << "no message was due";
    return built.ok() && built->has_value() ? **built : core::OutboxRow{};
  }

  std::string StoredEpisode(const std::string& channel = "pd") {
    return test_store_->Query(
        "SELECT coalesce(CAST(episode AS TEXT), 'NULL') FROM outbox_groups"
        " WHERE channel = '" +
        channel + "'");
  }
};

TEST_P(CallbackStoreTest, ARememberedEventIsADuplicateUntilItExpires) {
  const core::WallTime t0 = OutboxEpoch();
  EXPECT_EQ(Remember(*store_, "pagerduty", "e1", t0, t0 + hours(49)), "new");
  EXPECT_EQ(Remember(*store_, "pagerduty", "e1", t0 + hours(1), t0 + hours(50)), "duplicate");
  EXPECT_EQ(Remember(*store_, "slack", "e1", t0, t0 + minutes(6)), "new");  // another provider's
  // A transaction that rolls back remembers nothing: the provider's retry still applies.
  EXPECT_EQ(Remember(*store_, "pagerduty", "e2", t0, t0 + hours(49), /*commit=*/false), "new");
  EXPECT_EQ(Remember(*store_, "pagerduty", "e2", t0, t0 + hours(49)), "new");
  EXPECT_EQ(test_store_->Query("SELECT count(*) FROM callback_events"), "3");
  // Expired rows go with the next event; the same id is then new again.
  EXPECT_EQ(Remember(*store_, "pagerduty", "e3", t0 + hours(49), t0 + hours(98)), "new");
  EXPECT_EQ(test_store_->Query("SELECT count(*) FROM callback_events"), "1");
  EXPECT_EQ(Remember(*store_, "pagerduty", "e1", t0 + hours(49), t0 + hours(98)), "new");
}

TEST_P(CallbackStoreTest, TwoDeliveriesAtOnceOnTwoConnectionsApplyOnce) {
  const core::WallTime t0 = OutboxEpoch();
  std::optional<core::Store> other;
  Connect(other);
  auto first = store_->incidents().Begin();
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto fresh = (*first)->RememberCallbackEvent("pagerduty", "e1", t0, t0 + hours(49));
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  EXPECT_TRUE(*fresh);
  // The second waits for the first transaction (its lock on the store or on the row), then
  // finds the event remembered.
  std::string second;
  std::thread racer([&] { second = Remember(*other, "pagerduty", "e1", t0, t0 + hours(49)); });
  ASSERT_TRUE((*first)->Commit().ok());
  racer.join();
  EXPECT_EQ(second, "duplicate");
}

TEST_P(CallbackStoreTest, GroupMessagesCarryTheirEpisodeFromTheOpenThatBeginsItToTheResolve) {
  const core::WallTime t0 = OutboxEpoch();
  Join("a", 1, 1, TransitionKind::kOpen, t0);
  const core::OutboxRow first = Assemble(t0 + kWait);
  EXPECT_NE(first.payload.find(R"("open_after":1,"episode":1})"), std::string::npos)
      << first.payload;
  EXPECT_EQ(StoredEpisode(), "1");
  Join("b", 1, 1, TransitionKind::kOpen, t0 + minutes(1));
  const core::OutboxRow second = Assemble(t0 + minutes(6));
  EXPECT_EQ(second.generation, 2u);
  EXPECT_NE(second.payload.find(R"("open_after":2,"episode":1})"), std::string::npos)
      << second.payload;
  Join("a", 1, 2, TransitionKind::kResolve, t0 + minutes(7));
  Join("b", 1, 2, TransitionKind::kResolve, t0 + minutes(7));
  const core::OutboxRow third = Assemble(t0 + minutes(12));
  EXPECT_NE(third.payload.find(R"("open_after":0,"episode":1})"), std::string::npos)
      << third.payload;
  EXPECT_EQ(StoredEpisode(), "0");
  // The alert was resolved: the next open begins episode 4, its own sequence.
  Join("a", 2, 3, TransitionKind::kOpen, t0 + hours(1));
  const core::OutboxRow fourth = Assemble(t0 + hours(2));
  EXPECT_NE(fourth.payload.find(R"("open_after":1,"episode":4})"), std::string::npos)
      << fourth.payload;
  EXPECT_EQ(StoredEpisode(), "4");
}

TEST_P(CallbackStoreTest, AGroupMessagedBeforeEpisodesKeepsItsOldKeyUntilItsAlertEnds) {
  const core::WallTime t0 = OutboxEpoch();
  Join("a", 1, 1, TransitionKind::kOpen, t0);
  Assemble(t0 + kWait);
  test_store_->Query("UPDATE outbox_groups SET episode = NULL");  // as the upgrade leaves it
  Join("b", 1, 1, TransitionKind::kOpen, t0 + minutes(1));
  const core::OutboxRow second = Assemble(t0 + minutes(6));
  EXPECT_EQ(second.payload.find("episode"), std::string::npos) << second.payload;
  EXPECT_EQ(StoredEpisode(), "NULL");
  Join("a", 1, 2, TransitionKind::kResolve, t0 + minutes(7));
  Join("b", 1, 2, TransitionKind::kResolve, t0 + minutes(7));
  const core::OutboxRow third = Assemble(t0 + minutes(12));
  EXPECT_EQ(third.payload.find("episode"), std::string::npos) << third.payload;
  EXPECT_EQ(StoredEpisode(), "0");
  Join("c", 1, 1, TransitionKind::kOpen, t0 + hours(1));
  const core::OutboxRow fourth = Assemble(t0 + hours(2));
  EXPECT_NE(fourth.payload.find(R"("episode":4})"), std::string::npos) << fourth.payload;
}

TEST_P(CallbackStoreTest, AMessagesOpenMembersAreTheGenerationsItCarriedThatAreStillOpen) {
  const core::WallTime t0 = OutboxEpoch();
  PutIncident("a", 2, true, t0);   // reopened since the message carried generation 1
  PutIncident("b", 1, true, t0);   // still open
  PutIncident("c", 1, false, t0);  // resolved since
  PutIncident("d", 1, true, t0);   // open, in a later message
  Join("a", 1, 1, TransitionKind::kOpen, t0);
  Join("b", 1, 1, TransitionKind::kOpen, t0);
  Join("c", 1, 1, TransitionKind::kOpen, t0);
  const core::OutboxRow first = Assemble(t0 + kWait);
  Join("a", 2, 3, TransitionKind::kOpen, t0 + minutes(1));
  Join("d", 1, 1, TransitionKind::kOpen, t0 + minutes(1));
  const core::OutboxRow second = Assemble(t0 + minutes(6));
  EXPECT_EQ(Generations(store_->operators().OpenMembersOfMessage(first.idempotency_key)), "b#1");
  EXPECT_EQ(Generations(store_->operators().OpenMembersOfMessage(second.idempotency_key)),
            "a#2 d#1");
  EXPECT_EQ(Generations(store_->operators().OpenMembersOfMessage("q1-nosuchrow")), "");
}

TEST_P(CallbackStoreTest, AGroupsOpenMembersAreThoseCarriedByThenOnItsChannelInItsEpisode) {
  const core::WallTime t0 = OutboxEpoch();
  PutIncident("a", 1, true, t0);
  PutIncident("b", 1, true, t0 + minutes(1));
  PutIncident("w", 1, true, t0);  // waits: no message took it yet
  PutIncident("x", 1, true, t0);  // another channel's member of the same group key
  Join("a", 1, 1, TransitionKind::kOpen, t0);
  Assemble(t0 + kWait);  // carries a at t0+30s
  Join("b", 1, 1, TransitionKind::kOpen, t0 + minutes(1));
  Assemble(t0 + minutes(6));  // carries b at t0+6m
  Join("w", 1, 1, TransitionKind::kOpen, t0 + minutes(7));
  Join("x", 1, 1, TransitionKind::kOpen, t0, "chat");
  Assemble(t0 + kWait, "chat");

  core::OperatorStore& ops = store_->operators();
  EXPECT_EQ(Generations(ops.OpenMembersOfGroup("pd", kGroup, 1, t0 + minutes(1))), "a#1");
  EXPECT_EQ(Generations(ops.OpenMembersOfGroup("pd", kGroup, 1, t0 + hours(1))), "a#1 b#1");
  EXPECT_EQ(Generations(ops.OpenMembersOfGroup("pd", kGroup, std::nullopt, t0 + hours(1))),
            "a#1 b#1");
  // Another episode than the group's current one names nothing.
  EXPECT_EQ(Generations(ops.OpenMembersOfGroup("pd", kGroup, 2, t0 + hours(1))), "");
  EXPECT_EQ(Generations(ops.OpenMembersOfGroup("pd", "tenant=other", 1, t0 + hours(1))), "");
  // Without a channel (a key from before episodes): every channel's members of the group.
  EXPECT_EQ(Generations(ops.OpenMembersOfGroup("", kGroup, std::nullopt, t0 + hours(1))),
            "a#1 b#1 x#1");
  EXPECT_EQ(Generations(ops.OpenMembersOfGroup("", kGroup, std::nullopt, t0 + minutes(1))),
            "a#1 x#1");
}

// A group's page lists what its messages carried, open or not, each key once at its newest
// generation carried; a waiting member and another channel's are not this group's (issue 31).
TEST_P(CallbackStoreTest, AGroupsMembersAreTheKeysItsMessagesCarriedOnItsChannel) {
  const core::WallTime t0 = OutboxEpoch();
  PutIncident("b", 2, true, t0);
  PutIncident("a", 1, false, t0);
  Join("b", 1, 1, TransitionKind::kOpen, t0);
  Join("a", 1, 1, TransitionKind::kOpen, t0);
  Assemble(t0 + kWait);
  Join("b", 2, 3, TransitionKind::kOpen, t0 + minutes(1));
  Assemble(t0 + minutes(6));
  Join("w", 1, 1, TransitionKind::kOpen, t0 + minutes(7));  // waits
  Join("x", 1, 1, TransitionKind::kOpen, t0, "chat");
  Assemble(t0 + kWait, "chat");
  core::OperatorStore& ops = store_->operators();
  EXPECT_EQ(Generations(ops.GroupMemberKeys("pd", kGroup, 100)), "a#1 b#2");
  EXPECT_EQ(Generations(ops.GroupMemberKeys("pd", kGroup, 1)), "a#1");
  EXPECT_EQ(Generations(ops.GroupMemberKeys("chat", kGroup, 100)), "x#1");
  EXPECT_EQ(Generations(ops.GroupMemberKeys("pd", "tenant=other", 100)), "");
}

INSTANTIATE_TEST_SUITE_P(Sqlite, CallbackStoreTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, CallbackStoreTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
