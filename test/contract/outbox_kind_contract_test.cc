// Each outbox row's kind (core::OutboxRowKind) in its own column, on SQLite and PostgreSQL:
// every writer stores the kind the core gave the row, every reader hands it back, and a
// database from before migration 19 has its rows labelled from their key prefixes.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "outbox_test_support.h"
#include "quell/adapters/store_common/schema.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/group_plan.h"
#include "quell/core/delivery/tenant_budget.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::OutboxRowKind;
using std::chrono::minutes;
using std::chrono::seconds;

class OutboxKindTest : public StoreTest {
 protected:
  // The stored kind column of the row with `key`.
  std::string StoredKind(const std::string& key) const {
    return test_store_->Query("SELECT kind FROM outbox WHERE key = '" + key + "'");
  }

  // What ListOutbox reads back for the row with `key`; nullopt when it is not there.
  std::optional<OutboxRowKind> ListedKind(const std::string& key) {
    auto rows = store_->incidents().ListOutbox(std::nullopt);
    EXPECT_TRUE(rows.ok()) << rows.error().message;
    if (!rows.ok()) return std::nullopt;
    for (const core::OutboxRow& row : *rows) {
      if (row.key == key) return row.kind;
    }
    return std::nullopt;
  }
};

TEST_P(OutboxKindTest, EveryWriterStoresTheKindTheCoreGaveTheRow) {
  const core::WallTime t0 = OutboxEpoch();
  // The applier's insert: an incident's row, a tenant's digest and a grouped member.
  core::OutboxRow member = PendingRow("t1:c", 1, 1, "ops", t0);
  member.status = core::OutboxStatus::kGrouped;
  member.group_key = "condition=c";
  const core::OutboxRow digest = core::MakeDigestRow("acme", "ops", core::HourWindow(t0), t0);
  ASSERT_EQ(
      InsertRows(store_->incidents(), {PendingRow("acme:a", 1, 1, "ops", t0), digest, member}), "");
  // The dispatcher's writes: a group message, and a dead-letter notice with an outcome.
  auto group = store_->outbox().AssembleGroup("ops", "condition=c", t0 + minutes(1),
                                              core::GroupPlannerFor(seconds(30), minutes(5)));
  ASSERT_TRUE(group.ok() && group->has_value());
  auto claimed = store_->outbox().ClaimDue("d1", t0 + minutes(1), seconds(60), 10);
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  std::vector<core::OutboxOutcome> outcomes;
  for (const core::OutboxRow& row : *claimed) {
    EXPECT_EQ(row.kind, row.key == "acme:a" ? OutboxRowKind::kIncident : OutboxRowKind::kGroup)
        << row.key << ": the claim reads the kind";
    if (row.key != "acme:a") continue;
    core::OutboxOutcome dead;
    dead.kind = core::OutboxOutcome::Kind::kDead;
    dead.idempotency_key = row.idempotency_key;
    dead.error = "gone";
    dead.notice = core::MakeDeadLetterRow(
        "pager", core::DeadLetterWindowAt(t0 + minutes(1), minutes(10)), t0 + minutes(1));
    outcomes.push_back(dead);
  }
  ASSERT_EQ(outcomes.size(), 1u);
  ASSERT_TRUE(store_->outbox().RecordOutcomes("d1", outcomes, t0 + minutes(1)).ok());

  EXPECT_EQ(StoredKind("acme:a"), "incident");
  EXPECT_EQ(StoredKind("t1:c"), "incident");
  EXPECT_EQ(StoredKind(digest.key), "digest");
  EXPECT_EQ(StoredKind((*group)->key), "group");
  EXPECT_EQ(StoredKind(std::string(core::kDeadLetterKey)), "dead_letter");
  EXPECT_EQ(ListedKind(digest.key), OutboxRowKind::kDigest);
  EXPECT_EQ(ListedKind((*group)->key), OutboxRowKind::kGroup);
  EXPECT_EQ(ListedKind(std::string(core::kDeadLetterKey)), OutboxRowKind::kDeadLetter);
  EXPECT_EQ(ListedKind("t1:c"), OutboxRowKind::kIncident);
  auto dead = store_->outbox().DeadRows(t0, t0 + minutes(2));
  ASSERT_TRUE(dead.ok() && dead->size() == 1u);
  EXPECT_EQ((*dead)[0].kind, OutboxRowKind::kIncident);
  auto members = store_->outbox().GroupMembers((*group)->idempotency_key);
  ASSERT_TRUE(members.ok() && members->size() == 1u);
  EXPECT_EQ((*members)[0].kind, OutboxRowKind::kIncident);
}

// A database as the release before migration 19 left it, with a row of every kind the keys
// told apart then: opening it labels each from its key, and the keys stay as they were.
TEST_P(OutboxKindTest, MigrationNineteenLabelsOldRowsFromTheirKeys) {
  TestStore old(GetParam());
  std::string script =
      "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL,"
      " applied_at BIGINT NOT NULL);";
  for (const store::Migration& m : store::Migrations()) {
    if (m.version >= 19) break;
    script += GetParam() == Backend::kSqlite ? m.sqlite_sql : m.postgres_sql;
    script += "INSERT INTO schema_migrations VALUES (" + std::to_string(m.version) + ", 'old', 7);";
  }
  const std::vector<std::string> keys = {"acme:a", "{group}:condition=c", "{digest}:acme",
                                         std::string(core::kDeadLetterKey)};
  for (const std::string& key : keys) {
    script +=
        "INSERT INTO outbox (idempotency_key, key, generation, version, transition, channel,"
        " payload, status, attempts, next_attempt_at, lease_owner, lease_expires_at,"
        " last_error, remote_message_id, created_at, updated_at) VALUES ('" +
        core::OutboxIdempotencyKey(key, 1, 1, "ops") + "', '" + key +
        "', 1, 1, 'open', 'ops', '{}', 'sent', 1, 0, '', NULL, '', '', 0, 0);";
  }
  old.Query(script);

  auto opened = old.Open();
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(old.Query("SELECT max(version) FROM schema_migrations"),
            std::to_string(store::Migrations().back().version));
  auto rows = opened->incidents().ListOutbox(std::nullopt);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), keys.size());
  for (const core::OutboxRow& row : *rows) {
    const OutboxRowKind want = row.key == "acme:a"               ? OutboxRowKind::kIncident
                               : row.key.starts_with("{group}")  ? OutboxRowKind::kGroup
                               : row.key.starts_with("{digest}") ? OutboxRowKind::kDigest
                                                                 : OutboxRowKind::kDeadLetter;
    EXPECT_EQ(row.kind, want) << row.key;
    EXPECT_EQ(row.idempotency_key, core::OutboxIdempotencyKey(row.key, 1, 1, "ops"))
        << "keys unchanged";
  }
}

INSTANTIATE_TEST_SUITE_P(Sqlite, OutboxKindTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, OutboxKindTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
