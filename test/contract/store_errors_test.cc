// A locked, read-only or corrupt SQLite file and an unreachable or misconfigured PostgreSQL:
// each gives one clear line on stderr and a non-zero exit from the real quell binary.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "test_support.h"

namespace quell::testing {
namespace {

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

class ErrorsTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    QUELL_REQUIRE_BACKEND(GetParam());
    store_ = std::make_unique<TestStore>(GetParam());
    input_ = store_->dir() + "/in.jsonl";
    WriteFile(input_, ObservationLine("2026-12-02T09:00:00Z", "k", true));
  }

  ProcessResult Apply(const std::string& url, std::optional<uid_t> uid = std::nullopt) {
    return RunProcess({QuellBinary(), "apply", "--store", url}, input_, store_->dir(), uid);
  }

  std::string SqlitePath() const { return store_->url().substr(7); }

  std::unique_ptr<TestStore> store_;
  std::string input_;
};

using SqliteErrorsTest = ErrorsTest;
using PgErrorsTest = ErrorsTest;

TEST_P(SqliteErrorsTest, LockedFileSaysSoAndFails) {
  ASSERT_TRUE(store_->Open().ok());
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(SqlitePath().c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto r = Apply(store_->url() + "?busy_timeout_ms=200");
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("database is locked by another process: " + SqlitePath()), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
  // Once the lock is gone the same command works.
  EXPECT_EQ(Apply(store_->url()).exit_code, 0);
}

TEST_P(SqliteErrorsTest, ReadOnlyFileSaysSoAndFails) {
  ASSERT_TRUE(store_->Open().ok());
  ASSERT_EQ(chmod(SqlitePath().c_str(), 0444), 0);
  // Root ignores file modes, so as root the child drops to nobody.
  std::optional<uid_t> uid;
  if (geteuid() == 0) uid = 65534;
  auto r = Apply(store_->url(), uid);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("database is read-only: " + SqlitePath()), std::string::npos) << r.err;
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
}

TEST_P(SqliteErrorsTest, ReadOnlyFileFailsAlikeWhenOnlyRootCanReachTheBuild) {
  // Root's usual clone is under /root (mode 700): nobody cannot even look up a path in it, yet
  // the test above must still run quell as nobody from there.
  if (geteuid() != 0) GTEST_SKIP() << "only root can run quell as another user";
  const std::string hidden = store_->dir() + "/root-only";
  ASSERT_TRUE(std::filesystem::create_directory(hidden));
  std::filesystem::permissions(hidden, std::filesystem::perms::owner_all);
  std::filesystem::copy_file(QuellBinary(), hidden + "/quell");
  ASSERT_TRUE(store_->Open().ok());
  ASSERT_EQ(chmod(SqlitePath().c_str(), 0444), 0);
  auto r = RunProcess({hidden + "/quell", "apply", "--store", store_->url()}, input_, store_->dir(),
                      65534);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("database is read-only: " + SqlitePath()), std::string::npos) << r.err;
}

TEST_P(SqliteErrorsTest, CorruptFileSaysSoAndFails) {
  WriteFile(SqlitePath(), std::string(8192, 'x'));
  auto r = Apply(store_->url());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "quell apply: not a quell database or corrupt: " + SqlitePath() + "\n");
  auto list =
      RunProcess({QuellBinary(), "incidents", "list", "--store", store_->url()}, "", store_->dir());
  EXPECT_EQ(list.exit_code, 1);
  EXPECT_EQ(Lines(list.err), 1u) << list.err;
}

TEST_P(SqliteErrorsTest, ForeignSqliteDatabaseIsNotTouched) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(SqlitePath().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE photos (id INTEGER)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto r = Apply(store_->url());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not a quell database"), std::string::npos) << r.err;
  EXPECT_EQ(store_->Query("SELECT count(*) FROM sqlite_master"), "1");
}

TEST_P(SqliteErrorsTest, MissingDirectorySaysSoAndFails) {
  auto r = Apply("sqlite:" + store_->dir() + "/no/such/dir/q.db");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot open database"), std::string::npos) << r.err;
  EXPECT_EQ(Lines(r.err), 1u);
}

TEST_P(SqliteErrorsTest, UnknownSchemeIsAUsageError) {
  auto r = Apply("mysql://localhost/q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("want sqlite:PATH or postgresql://"), std::string::npos) << r.err;
}

TEST_P(PgErrorsTest, UnreachableServerNamesHostAndPort) {
  auto r = Apply("postgresql://quell:s3cret@127.0.0.1:1/quell?connect_timeout=5");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot connect to PostgreSQL at 127.0.0.1:1/quell"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("s3cret"), std::string::npos) << "never print the password";
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
}

TEST_P(PgErrorsTest, MisconfiguredDatabaseOrRoleNamesHostAndPort) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(std::getenv("QUELL_TEST_PG_URL"), &error);
  ASSERT_NE(options, nullptr);
  std::string host = "127.0.0.1", port = "5432";
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (std::string(o->keyword) == "host") host = o->val;
    if (std::string(o->keyword) == "port") port = o->val;
  }
  PQconninfoFree(options);
  const std::string where = host + ":" + port;
  auto no_db = Apply("postgresql://quell:s3cret@" + where + "/no_such_db");
  EXPECT_EQ(no_db.exit_code, 1);
  EXPECT_NE(no_db.err.find("cannot connect to PostgreSQL at " + where + "/no_such_db"),
            std::string::npos)
      << no_db.err;
  EXPECT_NE(no_db.err.find("no_such_db"), std::string::npos);
  EXPECT_EQ(no_db.err.find("s3cret"), std::string::npos);
  EXPECT_EQ(Lines(no_db.err), 1u) << no_db.err;

  auto no_role = Apply("postgresql://nobody_here@" + where + "/quell_test");
  EXPECT_EQ(no_role.exit_code, 1);
  EXPECT_NE(no_role.err.find("nobody_here"), std::string::npos) << no_role.err;
  EXPECT_EQ(Lines(no_role.err), 1u) << no_role.err;
}

TEST_P(PgErrorsTest, MalformedUrlIsAUsageError) {
  auto r = Apply("postgresql://127.0.0.1:5432/q?no_such_option=1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("invalid PostgreSQL URL"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Sqlite, SqliteErrorsTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, PgErrorsTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
