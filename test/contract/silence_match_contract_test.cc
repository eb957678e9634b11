// Silences of one exact key beside key globs, on SQLite and PostgreSQL: the kind is stored and
// read back, a poll applies each as its kind says, and silences stored before kinds existed stay
// globs.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/store_common/schema.h"
#include "quell/app/operator_commands.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using core::OutboxStatus;
using core::SilenceMatch;
using std::chrono::hours;

class SilenceMatchContractTest : public StoreTest {
 protected:
  // One poll observing each of `keys` failing, routed to one channel; the outbox silenced.
  uint64_t ObserveFailing(const std::vector<std::string>& keys) {
    app::ApplyOptions options;
    options.channels = {"webhook"};
    app::PollApplier applier(store_->incidents(), encoder_, options);
    std::vector<core::Observation> poll;
    for (const std::string& key : keys) {
      core::Observation o;
      o.key = key;
      o.at = t0_;
      o.health = core::Health::kUnhealthy;
      o.condition = "c";
      poll.push_back(o);
    }
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied = applier.Apply(stream, "poll-1", t0_, sink);
    EXPECT_TRUE(applied.ok()) << applied.error().message;
    return applied.ok() ? applied->outbox_silenced : 0;
  }

  OutboxStatus StatusOf(const std::string& key) {
    auto rows = store_->incidents().ListOutbox(std::nullopt);
    EXPECT_TRUE(rows.ok());
    for (const core::OutboxRow& row : *rows) {
      if (row.key == key) return row.status;
    }
    ADD_FAILURE() << "no row of " << key;
    return OutboxStatus::kDropped;
  }

  jsonl::JsonPayloadEncoder encoder_;
  const core::WallTime t0_ = OutboxEpoch();
};

TEST_P(SilenceMatchContractTest, TheKindIsStoredAndReadBack) {
  core::Silence exact{0, "*:*", t0_ + hours(1), "noisy", "alice", t0_, SilenceMatch::kExact};
  core::Silence glob{0, "acme:*", t0_ + hours(1), "maintenance", "bob", t0_, SilenceMatch::kGlob};
  ASSERT_TRUE(store_->operators().AddSilence(exact).ok());
  ASSERT_TRUE(store_->operators().AddSilence(glob).ok());
  EXPECT_EQ(test_store_->Query("SELECT match_kind FROM silences WHERE pattern = '*:*'"), "exact");

  auto listed = store_->operators().ListSilences(std::nullopt);
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].pattern, "*:*");
  EXPECT_EQ((*listed)[0].match, SilenceMatch::kExact);
  EXPECT_EQ((*listed)[1].pattern, "acme:*");
  EXPECT_EQ((*listed)[1].match, SilenceMatch::kGlob);

  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok());
  auto active = (*tx)->LoadActiveSilences(t0_);
  ASSERT_TRUE(active.ok()) << active.error().message;
  ASSERT_EQ(active->size(), 2u);
  EXPECT_EQ((*active)[0].match, SilenceMatch::kExact);
  EXPECT_EQ((*active)[1].match, SilenceMatch::kGlob);
}

TEST_P(SilenceMatchContractTest, APollSilencesOnlyTheExactKeyEvenWhenItHoldsGlobCharacters) {
  app::OperatorCommands ops(store_->incidents(), store_->operators(), encoder_);
  ASSERT_TRUE(ops.AddSilence(SilenceMatch::kExact, "*:*", hours(1), "noisy", "alice", t0_).ok());
  EXPECT_EQ(ObserveFailing({"*:*", "acme:db", "*:db", "a?b", "[x]"}), 1u);
  EXPECT_EQ(StatusOf("*:*"), OutboxStatus::kSilenced);
  for (const char* key : {"acme:db", "*:db", "a?b", "[x]"}) {
    EXPECT_EQ(StatusOf(key), OutboxStatus::kPending) << key;
  }
}

TEST_P(SilenceMatchContractTest, SilencesStoredBeforeKindsExistedStayGlobs) {
  // A database as the release before left it: every migration up to this one, and a silence.
  TestStore old(GetParam());
  std::string sql =
      "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL,"
      " applied_at BIGINT NOT NULL);";
  bool found = false;
  for (const store::Migration& m : store::Migrations()) {
    if (std::string(m.name) == "exact-key silences") {
      found = true;
      break;
    }
    sql += GetParam() == Backend::kSqlite ? m.sqlite_sql : m.postgres_sql;
    std::string name = m.name;
    for (size_t at = name.find('\''); at != std::string::npos; at = name.find('\'', at + 2)) {
      name.insert(at, 1, '\'');
    }
    sql += "INSERT INTO schema_migrations VALUES (" + std::to_string(m.version) + ", '" + name +
           "', 7);";
  }
  ASSERT_TRUE(found);
  const std::string t = std::to_string(t0_.time_since_epoch().count());
  const std::string later = std::to_string((t0_ + hours(2)).time_since_epoch().count());
  sql +=
      "INSERT INTO silences (pattern, expires_at, reason, created_by, created_at) VALUES"
      " ('acme:*', " +
      later + ", 'old', 'alice', " + t + ");";
  old.Query(sql);

  auto opened = old.Open();
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto listed = opened->operators().ListSilences(std::nullopt);
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].pattern, "acme:*");
  EXPECT_EQ((*listed)[0].match, SilenceMatch::kGlob);
  EXPECT_TRUE(core::IsSilenced(*listed, "acme:db", t0_));
}

INSTANTIATE_TEST_SUITE_P(Sqlite, SilenceMatchContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, SilenceMatchContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
