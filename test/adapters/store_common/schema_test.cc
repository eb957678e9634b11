#include "quell/adapters/store_common/schema.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/engine/incident.h"
#include "quell/core/ports/outbox_row.h"

namespace quell::store {
namespace {

// What a script creates, in order: "TABLE incidents", "INDEX decisions_at", ...
std::vector<std::string> Created(const std::string& sql) {
  std::vector<std::string> out;
  for (size_t at = sql.find("CREATE "); at != std::string::npos; at = sql.find("CREATE ", at + 1)) {
    const size_t kind = at + 7;
    const size_t end = sql.find_first_of(" (", sql.find(' ', kind) + 1);
    out.push_back(sql.substr(kind, end - kind));
  }
  return out;
}

TEST(SchemaTest, MigrationsAreNumberedFromOneWithoutGaps) {
  int expected = 1;
  for (const Migration& m : Migrations()) EXPECT_EQ(m.version, expected++);
}

TEST(SchemaTest, BothDialectsCreateTheSameTablesAndIndexes) {
  for (const Migration& m : Migrations()) {
    EXPECT_EQ(Created(m.sqlite_sql), Created(m.postgres_sql)) << "migration " << m.version;
  }
  ASSERT_EQ(Migrations().size(), 21u);
  EXPECT_EQ(Created(Migrations()[0].sqlite_sql),
            (std::vector<std::string>{"TABLE incidents", "TABLE decisions", "INDEX decisions_at",
                                      "TABLE polls", "TABLE outbox", "INDEX outbox_due"}));
  EXPECT_EQ(Created(Migrations()[1].sqlite_sql),
            (std::vector<std::string>{"INDEX incidents_open", "TABLE source_marks"}));
  EXPECT_EQ(Created(Migrations()[2].sqlite_sql),
            (std::vector<std::string>{"INDEX outbox_live", "INDEX outbox_sent"}));
  EXPECT_EQ(Created(Migrations()[3].sqlite_sql),
            (std::vector<std::string>{"TABLE budget_windows", "INDEX outbox_folded"}));
  EXPECT_EQ(Created(Migrations()[4].sqlite_sql),
            (std::vector<std::string>{"TABLE silences", "INDEX silences_expires"}));
  EXPECT_EQ(Created(Migrations()[5].sqlite_sql), (std::vector<std::string>{"TABLE key_groups"}));
  EXPECT_EQ(Created(Migrations()[6].sqlite_sql),
            (std::vector<std::string>{"INDEX incidents_held"}));
  EXPECT_EQ(Created(Migrations()[7].sqlite_sql), (std::vector<std::string>{"INDEX outbox_done"}));
  EXPECT_EQ(Created(Migrations()[8].sqlite_sql),
            (std::vector<std::string>{"INDEX incidents_pending"}));
  EXPECT_EQ(Created(Migrations()[9].sqlite_sql),
            (std::vector<std::string>{"INDEX outbox_waiting", "INDEX outbox_members",
                                      "INDEX outbox_group_keys", "TABLE outbox_groups"}));
  EXPECT_TRUE(Created(Migrations()[10].sqlite_sql).empty());  // a column only
  EXPECT_EQ(Created(Migrations()[11].sqlite_sql),
            (std::vector<std::string>{"TABLE poll_leases", "TABLE instances"}));
  EXPECT_EQ(Created(Migrations()[12].sqlite_sql),
            (std::vector<std::string>{"TABLE observation_marks", "INDEX observation_marks_at",
                                      "TABLE delivery_attempts", "INDEX delivery_attempts_key",
                                      "INDEX delivery_attempts_at", "TABLE maintenance_windows",
                                      "INDEX maintenance_windows_ends"}));
  EXPECT_EQ(Created(Migrations()[13].sqlite_sql),
            (std::vector<std::string>{"INDEX incidents_triage"}));
  EXPECT_TRUE(Created(Migrations()[14].sqlite_sql).empty());  // a column only
  EXPECT_EQ(Created(Migrations()[15].sqlite_sql),
            (std::vector<std::string>{"TABLE callback_events", "INDEX callback_events_expiry"}));
  EXPECT_EQ(Created(Migrations()[16].sqlite_sql),
            (std::vector<std::string>{"INDEX outbox_generation", "INDEX outbox_tier_waiting",
                                      "INDEX key_groups_seen"}));
  EXPECT_EQ(Created(Migrations()[17].sqlite_sql),
            (std::vector<std::string>{"INDEX outbox_pending_due", "INDEX outbox_leases"}));
  EXPECT_TRUE(Created(Migrations()[18].sqlite_sql).empty());  // a column only
  EXPECT_EQ(
      Created(Migrations()[19].sqlite_sql),
      (std::vector<std::string>{"TABLE delivery_attempts_by_key", "INDEX delivery_attempts_key",
                                "INDEX delivery_attempts_at"}));
  EXPECT_EQ(Created(Migrations()[20].sqlite_sql),
            (std::vector<std::string>{"INDEX incidents_open"}));  // and a column
}

// Migration 19 labels old rows by the prefixes the core's keys carried, and allows exactly the
// kinds the stores write.
TEST(SchemaTest, TheKindStepNamesEveryKindAndTheKeyPrefixes) {
  for (const char* sql : {Migrations()[18].sqlite_sql, Migrations()[18].postgres_sql}) {
    const std::string text(sql);
    for (auto kind : {core::OutboxRowKind::kIncident, core::OutboxRowKind::kGroup,
                      core::OutboxRowKind::kDigest, core::OutboxRowKind::kDeadLetter}) {
      EXPECT_NE(text.find(std::string("'") + core::OutboxRowKindName(kind) + "'"),
                std::string::npos)
          << core::OutboxRowKindName(kind);
    }
    for (std::string_view prefix :
         {core::kGroupKeyPrefix, core::kDigestKeyPrefix, core::kDeadLetterKey}) {
      EXPECT_NE(text.find("'" + std::string(prefix) + "'"), std::string::npos) << prefix;
    }
  }
}

TEST(SchemaTest, TheTierIndexSelectsTheStatusesTheStoresWrite) {
  const std::string waiting =
      std::string("tier > 0 AND (status = '") +
      core::OutboxStatusName(core::OutboxStatus::kPending) + "' OR (status = '" +
      core::OutboxStatusName(core::OutboxStatus::kGrouped) + "' AND group_row IS NULL))";
  for (const char* sql : {Migrations()[16].sqlite_sql, Migrations()[16].postgres_sql}) {
    EXPECT_NE(std::string(sql).find(waiting), std::string::npos) << sql;
  }
}

TEST(SchemaTest, TheOutboxIndexesSelectTheStatusesTheStoresWrite) {
  const std::string live = std::string("WHERE status IN ('") +
                           core::OutboxStatusName(core::OutboxStatus::kPending) + "', '" +
                           core::OutboxStatusName(core::OutboxStatus::kInFlight) + "')";
  const std::string sent =
      std::string("WHERE status = '") + core::OutboxStatusName(core::OutboxStatus::kSent) + "'";
  for (const char* sql : {Migrations()[2].sqlite_sql, Migrations()[2].postgres_sql}) {
    EXPECT_NE(std::string(sql).find(live), std::string::npos) << sql;
    EXPECT_NE(std::string(sql).find(sent), std::string::npos) << sql;
  }
}

TEST(SchemaTest, TheOpenIndexSelectsTheStatusTheStoresWrite) {
  const std::string predicate =
      std::string("WHERE status = '") + core::IncidentStatusName(core::IncidentStatus::kOpen) + "'";
  EXPECT_NE(std::string(Migrations()[1].sqlite_sql).find(predicate), std::string::npos);
  EXPECT_NE(std::string(Migrations()[1].postgres_sql).find(predicate), std::string::npos);
}

}  // namespace
}  // namespace quell::store
