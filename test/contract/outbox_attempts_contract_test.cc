// What an attempt is (a send whose outcome was recorded, not a claim), the throttle budget's
// mark, and outbox retention, on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include "../app/fake_clock.h"
#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/dispatcher.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/ports/operator_store.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace outbox_attempts_contract_test {

using core::OutboxOutcome;
using core::OutboxStatus;
using std::chrono::hours;
using std::chrono::seconds;

constexpr core::Duration kLease = seconds(60);

class KeyRenderer : public core::MessageRenderer {
 public:
  core::Result<core::RenderedMessage> Render(std::string_view /*type*/,
                                             const core::OutboxRow& row) const override {
    return core::RenderedMessage{row.key, row.key, "error"};
  }
};

// A webhook carrying the row's idempotency key, read as the real channels read answers.
class KeyedChannel : public core::HttpChannel {
 public:
  core::Result<core::HttpRequest> Encode(const core::Delivery& d, core::WallTime) const override {
    core::HttpRequest request;
    request.method = "POST";
    request.url = "http://127.0.0.1:9/hook";
    request.headers = {{"Idempotency-Key", d.row.idempotency_key}};
    request.body = d.message.body;
    return request;
  }
  core::SendOutcome Decode(const core::Delivery&, const core::HttpResponse& r) const override {
    if (r.status / 100 == 2) return core::SendOutcome::Sent("m");
    std::string why = "HTTP " + std::to_string(r.status);
    if (core::IsThrottleStatus(r.status)) return core::SendOutcome::Throttled(why);
    return core::SendOutcome::Retry(why);
  }
};

// Answers from a script (the last entry repeats) and keeps each request's key.
class ScriptedReceiver : public core::HttpBatchClient {
 public:
  explicit ScriptedReceiver(std::deque<int> statuses) : statuses_(std::move(statuses)) {}
  void SendAll(std::span<const core::HttpExchange> exchanges, std::span<const uint32_t>,
               const std::function<void(size_t, core::Result<core::HttpResponse>)>& done) override {
    for (size_t i = 0; i < exchanges.size(); ++i) {
      keys_.emplace_back(core::FindHeader(exchanges[i].request.headers, "Idempotency-Key"));
      const int status = statuses_.front();
      if (statuses_.size() > 1) statuses_.pop_front();
      done(i, core::HttpResponse{status, {}, ""});
    }
  }
  const std::vector<std::string>& keys() const { return keys_; }

 private:
  std::deque<int> statuses_;
  std::vector<std::string> keys_;
};

class OutboxAttemptsTest : public StoreTest {
 protected:
  void SetUpStore() override { Connect(dispatcher_); }

  void Insert(const std::vector<core::OutboxRow>& rows) {
    ASSERT_EQ(InsertRows(store_->incidents(), rows), "");
  }

  std::vector<core::OutboxRow> Claim(const std::string& owner, core::WallTime now) {
    auto rows = dispatcher_->outbox().ClaimDue(owner, now, kLease, 100);
    EXPECT_TRUE(rows.ok()) << rows.error().message;
    return rows.ok() ? *rows : std::vector<core::OutboxRow>{};
  }

  bool Record(const std::string& owner, const OutboxOutcome& outcome, core::WallTime now) {
    auto statuses = dispatcher_->outbox().RecordOutcomes(owner, {&outcome, 1}, now);
    EXPECT_TRUE(statuses.ok()) << statuses.error().message;
    return statuses.ok() && (*statuses)[0].ok();
  }

  core::OutboxRow Find(const std::string& idempotency_key) {
    auto rows = store_->incidents().ListOutbox(std::nullopt);
    EXPECT_TRUE(rows.ok());
    for (const auto& r : *rows) {
      if (r.idempotency_key == idempotency_key) return r;
    }
    ADD_FAILURE() << "no row " << idempotency_key;
    return {};
  }

  std::optional<core::Store> dispatcher_;
  const core::WallTime t0_ = OutboxEpoch();
};

OutboxOutcome Reschedule(const core::OutboxRow& row, core::WallTime at, bool throttled) {
  OutboxOutcome o;
  o.kind = OutboxOutcome::Kind::kReschedule;
  o.idempotency_key = row.idempotency_key;
  o.error = throttled ? "HTTP 429" : "HTTP 500";
  o.next_attempt_at = at;
  o.throttled = throttled;
  return o;
}

TEST_P(OutboxAttemptsTest, ClaimsLostWithTheirHoldersCostNoAttempt) {
  Insert({PendingRow("k", 1, 1, "hook", t0_)});
  // Three dispatchers claim the row and die before recording anything.
  for (int i = 0; i < 3; ++i) {
    const auto rows = Claim("dies-" + std::to_string(i), t0_ + i * kLease);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].attempts, 0u);
    EXPECT_EQ(rows[0].claims, static_cast<uint32_t>(i + 1));
  }
  const auto rows = Claim("lives", t0_ + 3 * kLease);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].attempts, 0u);
  EXPECT_EQ(rows[0].claims, 4u);
  ASSERT_TRUE(Record("lives", Reschedule(rows[0], t0_ + hours(1), false), t0_ + 3 * kLease));
  const core::OutboxRow after = Find(rows[0].idempotency_key);
  EXPECT_EQ(after.status, OutboxStatus::kPending);
  EXPECT_EQ(after.attempts, 1u);
  EXPECT_EQ(test_store_->Query("SELECT claims FROM outbox"), "4");
}

TEST_P(OutboxAttemptsTest, ADispatcherAfterThreeCrashesAndA500KeepsTheRowAndItsKey) {
  const core::OutboxRow row = PendingRow("k", 1, 1, "hook", t0_);
  Insert({row});
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Claim("dies-" + std::to_string(i), t0_ + i * kLease).size(), 1u);
  }
  FakeClock clock(t0_ + 3 * kLease);
  KeyRenderer renderer;
  KeyedChannel channel;
  ScriptedReceiver receiver({500, 200});
  app::DispatcherOptions options;
  options.owner = "lives";
  app::Dispatcher dispatcher(dispatcher_->outbox(), renderer, receiver, clock, options);
  app::ChannelLimits limits;
  limits.max_attempts = 3;  // the old count (4 claims) was past it before the first answer
  dispatcher.AddHttpChannel("hook", "webhook", channel, limits);

  const app::DispatchReport first = dispatcher.RunOnce();
  EXPECT_EQ(first.retried, 1u);
  EXPECT_EQ(first.dead, 0u);
  EXPECT_EQ(Find(row.idempotency_key).status, OutboxStatus::kPending);
  EXPECT_EQ(Find(row.idempotency_key).attempts, 1u);
  clock.SleepFor(hours(1));
  EXPECT_EQ(dispatcher.RunOnce().sent, 1u);
  EXPECT_EQ(Find(row.idempotency_key).status, OutboxStatus::kSent);
  EXPECT_EQ(Find(row.idempotency_key).attempts, 2u);
  EXPECT_EQ(receiver.keys(), (std::vector<std::string>{row.idempotency_key, row.idempotency_key}));
}

TEST_P(OutboxAttemptsTest, ThrottledAnswersMarkTheRunStartAndCountNoAttempt) {
  Insert({PendingRow("k", 1, 1, "hook", t0_)});
  auto rows = Claim("a", t0_);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].throttled_since.has_value());
  ASSERT_TRUE(Record("a", Reschedule(rows[0], t0_ + seconds(2), true), t0_));
  rows = Claim("a", t0_ + seconds(2));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].attempts, 0u);
  EXPECT_EQ(rows[0].throttled_since, t0_);
  // A second throttled answer keeps the run's start.
  ASSERT_TRUE(Record("a", Reschedule(rows[0], t0_ + seconds(4), true), t0_ + seconds(2)));
  rows = Claim("a", t0_ + seconds(4));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].throttled_since, t0_);
  // Any other answer ends the run and counts.
  ASSERT_TRUE(Record("a", Reschedule(rows[0], t0_ + seconds(6), false), t0_ + seconds(4)));
  rows = Claim("a", t0_ + seconds(6));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].attempts, 1u);
  EXPECT_FALSE(rows[0].throttled_since.has_value());
  EXPECT_EQ(rows[0].claims, 4u);
}

TEST_P(OutboxAttemptsTest, AnOperatorsRetryOfARowDeadOfThrottlingGivesItAFreshBudget) {
  Insert({PendingRow("k", 1, 1, "hook", t0_)});
  auto rows = Claim("a", t0_);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(Record("a", Reschedule(rows[0], t0_ + seconds(2), true), t0_));
  rows = Claim("a", t0_ + hours(6));
  ASSERT_EQ(rows.size(), 1u);
  OutboxOutcome dead;
  dead.kind = OutboxOutcome::Kind::kDead;
  dead.idempotency_key = rows[0].idempotency_key;
  dead.error = "HTTP 429 (rate limited for 6h0m0s, budget of 6h0m0s exhausted)";
  dead.throttled = true;
  ASSERT_TRUE(Record("a", dead, t0_ + hours(6)));
  EXPECT_EQ(Find(rows[0].idempotency_key).attempts, 0u);
  ASSERT_TRUE(store_->operators().RetryDead(rows[0].idempotency_key, t0_ + hours(7)).ok());
  rows = Claim("b", t0_ + hours(7));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].throttled_since.has_value()) << "the old run's start would kill it at once";
}

TEST_P(OutboxAttemptsTest, RetentionTrimsOldFinishedRowsInBatchesAndKeepsTheRest) {
  const core::WallTime old = t0_ - hours(24 * 40);
  const core::WallTime cutoff = t0_ - hours(24 * 30);
  std::vector<core::OutboxRow> rows;
  auto add = [&](const std::string& key, OutboxStatus status, core::WallTime updated) {
    core::OutboxRow row = PendingRow(key, 1, 1, "hook", updated);
    row.status = status;
    if (status == OutboxStatus::kInFlight) {
      row.lease_owner = "x";
      row.lease_expires_at = t0_ + hours(1);
    }
    rows.push_back(row);
  };
  for (int i = 0; i < 21; ++i) add("sent:" + std::to_string(i), OutboxStatus::kSent, old);
  add("dead", OutboxStatus::kDead, old);
  add("dropped", OutboxStatus::kDropped, old);
  add("shadow", OutboxStatus::kShadow, old);
  add("superseded", OutboxStatus::kSuperseded, old);
  add("recent", OutboxStatus::kSent, cutoff + hours(1));
  add("waiting", OutboxStatus::kPending, old);
  add("leased", OutboxStatus::kInFlight, old);
  Insert(rows);
  // An incident opened 40 days ago and still open: follow-ups thread on its open row.
  jsonl::JsonPayloadEncoder encoder;
  NullSink sink;
  app::ApplyOptions options;
  options.channels = {"hook"};
  app::PollApplier applier(store_->incidents(), encoder, options);
  core::Observation observation;
  observation.key = "live:1";
  observation.at = old;
  observation.health = core::Health::kUnhealthy;
  observation.condition = "live";
  const std::vector<core::Observation> poll = {observation};
  app::VectorObservationStream stream(poll);
  ASSERT_TRUE(applier.Apply(stream, "poll-1", old, sink).ok());
  const auto live = dispatcher_->outbox().ClaimDue("a", old, kLease, 100);
  ASSERT_TRUE(live.ok());
  std::vector<OutboxOutcome> sent;
  for (const core::OutboxRow& r : *live) {
    if (r.key != "live:1") continue;
    OutboxOutcome o;
    o.kind = OutboxOutcome::Kind::kSent;
    o.idempotency_key = r.idempotency_key;
    o.remote_message_id = "thread-1";
    sent.push_back(o);
  }
  ASSERT_EQ(sent.size(), 1u);
  ASSERT_TRUE(dispatcher_->outbox().RecordOutcomes("a", sent, old).ok());

  std::vector<uint64_t> batches;
  for (;;) {
    auto trimmed = dispatcher_->outbox().TrimOutbox(cutoff, 10);
    ASSERT_TRUE(trimmed.ok()) << trimmed.error().message;
    batches.push_back(*trimmed);
    if (*trimmed < 10) break;
  }
  EXPECT_EQ(batches, (std::vector<uint64_t>{10, 10, 5}));
  auto left = store_->incidents().ListOutbox(std::nullopt);
  ASSERT_TRUE(left.ok());
  std::vector<std::string> keys;
  for (const core::OutboxRow& r : *left) keys.push_back(r.key);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"leased", "live:1", "recent", "waiting"}));
  auto thread = dispatcher_->outbox().ThreadRemoteId("live:1", 1, "hook");
  ASSERT_TRUE(thread.ok());
  EXPECT_EQ(*thread, "thread-1");
}

INSTANTIATE_TEST_SUITE_P(Sqlite, OutboxAttemptsTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, OutboxAttemptsTest, ::testing::Values(Backend::kPostgres));

}  // namespace outbox_attempts_contract_test
}  // namespace quell::testing
