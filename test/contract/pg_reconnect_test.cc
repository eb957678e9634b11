// The PostgreSQL store after the server dropped its connection (pg_terminate_backend from a
// second connection, as a restart does): the next operation reconnects and succeeds, a
// transaction the loss cut commits nothing, and a poll cut in the middle is applied whole.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "test_support.h"

namespace quell::testing {
namespace {

core::WallTime At(int64_t seconds) {
  return core::WallTime{std::chrono::seconds(1796202000 + seconds)};
}

core::Observation Unhealthy(const std::string& key, int64_t seconds) {
  return core::Observation{.key = key,
                           .at = At(seconds),
                           .health = core::Health::kUnhealthy,
                           .condition = "c",
                           .evidence = "{}",
                           .labels = {},
                           .upstream_count = {},
                           .first_seen_at = {},
                           .expire = false,
                           .evidence_fingerprint = std::nullopt};
}

class PgReconnectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    QUELL_REQUIRE_BACKEND(Backend::kPostgres);
    store_ = std::make_unique<TestStore>(Backend::kPostgres);
    name_ = "quell_reconnect_" + std::to_string(getpid()) + "_" + std::to_string(++counter_);
    auto opened = Open();
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    incidents_ = std::move(*opened);
  }

  core::Result<std::unique_ptr<core::IncidentStore>> Open() {
    // The application name lets the test find this store's server process, and only it.
    auto store = postgres::PgIncidentStore::Open(store_->url() + "&application_name=" + name_);
    if (!store) return store.error();
    return std::unique_ptr<core::IncidentStore>(std::move(*store));
  }

  // Ends the server process of the connection named `name` from another connection and waits
  // until it has exited (pg_terminate_backend only signals it), as a restart would; how many it
  // ended.
  std::string KillBackend() { return KillBackendNamed(name_); }
  std::string KillBackendNamed(const std::string& name) {
    const std::string where = " FROM pg_stat_activity WHERE application_name = '" + name + "'";
    const std::string pid = store_->Query("SELECT pid" + where);
    std::string ended = store_->Query("SELECT count(pg_terminate_backend(pid))" + where);
    // The backend leaves pg_stat_activity before it closes its socket; the socket is closed
    // once the process has exited (gone from /proc, or a zombie), and only then does the
    // store's idle check see the end of the connection.
    if (!pid.empty()) {
      while (!Exited(pid)) {
      }
    }
    return ended;
  }

  static bool Exited(const std::string& pid) {
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const size_t paren = line.rfind(')');
    return paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z';
  }

  core::Result<app::ApplySummary> Apply(const std::vector<core::Observation>& poll,
                                        app::DecisionSink& sink) {
    app::ApplyOptions options;
    app::PollApplier applier(*incidents_, encoder_, options);
    app::VectorObservationStream stream(poll);
    return applier.Apply(stream, "poll-" + std::to_string(poll.size()), At(100), sink);
  }

  static inline int counter_ = 0;
  std::unique_ptr<TestStore> store_;
  std::string name_;
  std::unique_ptr<core::IncidentStore> incidents_;
  jsonl::JsonPayloadEncoder encoder_;
};

TEST_F(PgReconnectTest, TheNextOperationAfterTheServerDroppedTheConnectionSucceeds) {
  NullSink sink;
  ASSERT_TRUE(Apply({Unhealthy("a", 1)}, sink).ok());
  ASSERT_EQ(KillBackend(), "1");
  auto listed = incidents_->ListIncidents();
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 1U);
  // And again, inside a transaction this time: BEGIN finds the connection dead and reconnects.
  ASSERT_EQ(KillBackend(), "1");
  auto applied = Apply({Unhealthy("b", 2)}, sink);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(applied->batch_attempts, 1U);
  EXPECT_EQ(store_->Query("SELECT count(*) FROM incidents"), "2");
}

TEST_F(PgReconnectTest, ATransactionCutByTheLossCommitsNothingAndSaysSo) {
  auto begun = incidents_->Begin();
  ASSERT_TRUE(begun.ok()) << begun.error().message;
  core::Incident incident;
  incident.key = "cut";
  incident.condition = "c";
  incident.version = 1;
  incident.generation = 1;
  incident.status = core::IncidentStatus::kOpen;
  const std::vector<core::IncidentWrite> writes = {{incident, 0}};
  ASSERT_TRUE((*begun)->PutIncidents(writes).ok());
  ASSERT_EQ(KillBackend(), "1");
  // Nothing after the loss runs outside the transaction, which would commit half of it.
  auto later = (*begun)->PutSourceMark("m", "v", At(1));
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().code, core::ErrorCode::kUnavailable);
  auto committed = (*begun)->Commit();
  ASSERT_FALSE(committed.ok());
  EXPECT_EQ(committed.error().code, core::ErrorCode::kUnavailable);
  EXPECT_NE(committed.error().message.find("nothing of it was committed"), std::string::npos)
      << committed.error().message;
  begun->reset();
  EXPECT_EQ(store_->Query("SELECT count(*) FROM incidents"), "0");
  EXPECT_EQ(store_->Query("SELECT count(*) FROM source_marks"), "0");
  auto listed = incidents_->ListIncidents();
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  EXPECT_TRUE(listed->empty());
}

// Ends the store's connection once, after the poll's first chunk was written and before it
// commits.
class KillingSink : public app::DecisionSink {
 public:
  explicit KillingSink(std::function<void()> kill) : kill_(std::move(kill)) {}
  void OnDecision(const core::Observation&, const core::Decision&) override {
    if (!killed_) kill_();
    killed_ = true;
  }
  void Reset() override { ++resets; }
  int resets = 0;

 private:
  std::function<void()> kill_;
  bool killed_ = false;
};

TEST_F(PgReconnectTest, APollCutBeforeItsCommitIsAppliedWholeOnItsRetry) {
  KillingSink sink([this] { ASSERT_EQ(KillBackend(), "1"); });
  auto applied = Apply({Unhealthy("x", 1), Unhealthy("y", 1)}, sink);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(applied->batch_attempts, 2U);
  EXPECT_EQ(sink.resets, 1);
  EXPECT_EQ(store_->Query("SELECT count(*) FROM incidents"), "2");
  EXPECT_EQ(store_->Query("SELECT count(*) FROM outbox"), "2");
  EXPECT_EQ(store_->Query("SELECT count(*) FROM polls"), "1");
}

// A server that refuses the reconnect: the store fails fast within its backoff instead of
// trying on every call, and connects again by itself once the server takes connections. Its
// own database, so refusing connections to it disturbs no other test.
TEST_F(PgReconnectTest, AReconnectThatFailsWaitsItsBackoffAndThenSucceeds) {
  const std::string url = store_->url();
  const size_t slash = url.rfind('/');
  const std::string db = "quell_reconnect_" + std::to_string(getpid());
  store_->Query("DROP DATABASE IF EXISTS " + db);
  store_->Query("CREATE DATABASE " + db);
  auto own = postgres::PgIncidentStore::Open(url.substr(0, slash + 1) + db +
                                             "?application_name=" + name_ + "_own");
  ASSERT_TRUE(own.ok()) << own.error().message;
  const auto kill_and_refuse = [&] {
    store_->Query("ALTER DATABASE " + db + " WITH ALLOW_CONNECTIONS false");
    ASSERT_EQ(KillBackendNamed(name_ + "_own"), "1");
  };
  kill_and_refuse();
  auto first = (*own)->ListIncidents();
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().code, core::ErrorCode::kUnavailable);
  EXPECT_NE(first.error().message.find("cannot reconnect to PostgreSQL"), std::string::npos)
      << first.error().message;
  // Right after a failed try, calls fail at once and say when the next try comes (a thread
  // descheduled past the 100 ms backoff would try again, so look at a few calls).
  bool waited = false;
  for (int i = 0; i < 5 && !waited; ++i) {
    auto again = (*own)->ListIncidents();
    ASSERT_FALSE(again.ok());
    waited = again.error().message.find("next reconnect in") != std::string::npos;
  }
  EXPECT_TRUE(waited);
  store_->Query("ALTER DATABASE " + db + " WITH ALLOW_CONNECTIONS true");
  bool back = false;
  while (!back) {  // within the backoff's next due try, at most 5 s away
    back = (*own)->ListIncidents().ok();
  }
  auto listed = (*own)->ListIncidents();
  EXPECT_TRUE(listed.ok());
  own->reset();
  store_->Query("DROP DATABASE IF EXISTS " + db);
}

}  // namespace
}  // namespace quell::testing
