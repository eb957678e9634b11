#include "quell/app/dispatcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fake_clock.h"
#include "fake_http_batch_client.h"
#include "fake_outbox_store.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/retry_after.h"
#include "quell/core/delivery/tenant_budget.h"

namespace quell::testing {
namespace {

using core::OutboxStatus;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

// 2026-12-02T09:00:00Z
constexpr core::WallTime kT0{std::chrono::microseconds(1796202000LL * 1000000)};

core::OutboxRow Row(const std::string& key, const std::string& channel, uint64_t version = 1,
                    std::string payload = "{}") {
  core::OutboxRow row;
  row.idempotency_key = core::OutboxIdempotencyKey(key, 1, version, channel);
  row.key = key;
  row.generation = 1;
  row.version = version;
  row.transition = version == 1 ? core::TransitionKind::kOpen : core::TransitionKind::kResolve;
  row.channel = channel;
  row.payload = std::move(payload);
  row.next_attempt_at = kT0;
  return row;
}

// "<type>: <key>"; a payload of "unrenderable" fails as a bad template would.
class FakeRenderer : public core::MessageRenderer {
 public:
  core::Result<core::RenderedMessage> Render(std::string_view type,
                                             const core::OutboxRow& row) const override {
    if (row.payload == "unrenderable") {
      return core::MakeError(core::ErrorCode::kInvalidArgument, "template: no field x");
    }
    return core::RenderedMessage{row.key, std::string(type) + ": " + row.key, "error"};
  }
};

// A webhook-like provider: the key in Idempotency-Key, the thread in X-Thread; its id comes
// back in X-Id and Retry-After is read as the dispatcher's channels do.
class FakeHttpChannel : public core::HttpChannel {
 public:
  explicit FakeHttpChannel(std::string url) : url_(std::move(url)) {}
  core::Result<core::HttpRequest> Encode(const core::Delivery& d, core::WallTime) const override {
    if (d.row.payload == "unencodable") {
      return core::MakeError(core::ErrorCode::kInvalidArgument, "no recipient");
    }
    core::HttpRequest request;
    request.method = "POST";
    request.url = url_;
    request.headers = {{"Idempotency-Key", d.row.idempotency_key},
                       {"X-Thread", d.thread_remote_id}};
    request.body = d.message.body;
    return request;
  }
  core::SendOutcome Decode(const core::Delivery&, const core::HttpResponse& r) const override {
    switch (core::ClassifyHttpStatus(r.status)) {
      case core::SendOutcome::Kind::kSent:
        return core::SendOutcome::Sent(std::string(core::FindHeader(r.headers, "X-Id")));
      case core::SendOutcome::Kind::kRetry: {
        auto after = core::ParseRetryAfter(core::FindHeader(r.headers, "Retry-After"), kT0);
        std::string why = "HTTP " + std::to_string(r.status);
        return core::IsThrottleStatus(r.status)
                   ? core::SendOutcome::Throttled(std::move(why), after)
                   : core::SendOutcome::Retry(std::move(why), after);
      }
      case core::SendOutcome::Kind::kPermanent:
        break;
    }
    return core::SendOutcome::Permanent("HTTP " + std::to_string(r.status));
  }

 private:
  std::string url_;
};

// A blocking channel (SMTP-like) that records what it sent and how many sends overlapped.
// With `probe` set, a send stays in flight until one more send than `probe` overlaps it (a
// dispatcher over its limit), all expected sends have started, or a short window passed: the
// window is the passing path, so a correct dispatcher shows a peak of exactly `probe`.
class FakeChannel : public core::Channel {
 public:
  FakeChannel() = default;
  FakeChannel(int probe, size_t expected_sends) : probe_(probe), expected_(expected_sends) {}
  core::SendOutcome Send(const core::Delivery& d) override {
    std::unique_lock<std::mutex> lock(mutex_);
    sent_.push_back(d);
    ++started_;
    peak_ = std::max(peak_, ++in_flight_);
    changed_.notify_all();
    if (probe_ > 0) {
      changed_.wait_for(lock, std::chrono::milliseconds(100),
                        [&] { return in_flight_ > probe_ || started_ >= expected_; });
    }
    --in_flight_;
    return next_;
  }
  void Answer(core::SendOutcome outcome) { next_ = std::move(outcome); }
  std::vector<core::Delivery> sent() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return sent_;
  }
  int peak() const { return peak_; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int probe_ = 0;
  size_t expected_ = 0;
  size_t started_ = 0;
  int in_flight_ = 0;
  int peak_ = 0;
  core::SendOutcome next_ = core::SendOutcome::Sent("smtp-id");
  std::vector<core::Delivery> sent_;
};

app::DispatcherOptions Options(std::string dead_letter, size_t claim_batch = 256,
                               size_t record_every = 64) {
  app::DispatcherOptions options;
  options.owner = "d1";
  options.dead_letter_channel = std::move(dead_letter);
  options.claim_batch = claim_batch;
  options.record_every = record_every;
  return options;
}

class DispatcherTest : public ::testing::Test {
 protected:
  app::Dispatcher Make(app::DispatcherOptions options = {}) {
    if (options.owner.empty()) options.owner = "d1";
    return app::Dispatcher(store_, renderer_, http_, clock_, std::move(options));
  }
  static std::string KeyOf(const core::HttpRequest& r) {
    return std::string(core::FindHeader(r.headers, "Idempotency-Key"));
  }

  FakeOutboxStore store_;
  FakeRenderer renderer_;
  FakeHttpBatchClient http_;
  FakeClock clock_{kT0};
  FakeHttpChannel webhook_{"https://hooks.test/w"};
  FakeHttpChannel slack_{"https://slack.test/api"};
  FakeChannel ops_;
};

// A second connection to the same store, as the claim ahead gets: every call on either
// wrapper is serialised on one mutex over the shared fake.
class SharedOutboxStore : public core::OutboxStore {
 public:
  SharedOutboxStore(FakeOutboxStore& inner, std::mutex& mutex) : inner_(inner), mutex_(mutex) {}
  core::Result<std::vector<core::OutboxRow>> ClaimDue(std::string_view owner, core::WallTime now,
                                                      core::Duration lease, size_t limit) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.ClaimDue(owner, now, lease, limit);
  }
  core::Result<std::vector<std::string>> CancelUnwantedTierRows(
      std::string_view owner, std::span<const core::OutboxRow> claimed,
      core::WallTime now) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.CancelUnwantedTierRows(owner, claimed, now);
  }
  core::Result<std::vector<core::Status>> RecordOutcomes(
      std::string_view owner, std::span<const core::OutboxOutcome> outcomes,
      core::WallTime now) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.RecordOutcomes(owner, outcomes, now);
  }
  core::Result<std::vector<core::WallTime>> SentTimes(std::string_view channel,
                                                      core::WallTime since) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.SentTimes(channel, since);
  }
  core::Result<std::vector<core::OutboxRow>> FoldedRows(std::string_view channel,
                                                        std::string_view tenant,
                                                        core::WallTime start,
                                                        core::WallTime end) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.FoldedRows(channel, tenant, start, end);
  }
  core::Result<std::vector<core::OutboxRow>> DeadRows(core::WallTime start,
                                                      core::WallTime end) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.DeadRows(start, end);
  }
  core::Result<uint64_t> TrimOutbox(core::WallTime cutoff, size_t limit) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.TrimOutbox(cutoff, limit);
  }
  core::Result<std::string> ThreadRemoteId(std::string_view key, uint64_t generation,
                                           std::string_view channel) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.ThreadRemoteId(key, generation, channel);
  }
  core::Result<std::vector<core::WaitingGroup>> WaitingGroups() override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.WaitingGroups();
  }
  core::Result<std::optional<core::OutboxRow>> AssembleGroup(
      std::string_view channel, std::string_view group_key, core::WallTime now,
      const core::GroupPlanner& plan) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.AssembleGroup(channel, group_key, now, plan);
  }
  core::Result<std::vector<core::OutboxRow>> GroupMembers(std::string_view group_row) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.GroupMembers(group_row);
  }
  core::Result<core::GroupStanding> GroupStandingAt(std::string_view channel,
                                                    std::string_view group_key,
                                                    core::WallTime at) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return inner_.GroupStandingAt(channel, group_key, at);
  }

 private:
  FakeOutboxStore& inner_;
  std::mutex& mutex_;
};

TEST_F(DispatcherTest, RecordsASendWithTheProvidersId) {
  const core::OutboxRow row = Row("k", "hook");
  store_.Add(row);
  http_.Respond(200, {{"X-Id", "remote-7"}});
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.claimed, 1u);
  EXPECT_EQ(report.sent, 1u);
  EXPECT_TRUE(report.errors.empty());
  EXPECT_EQ(store_.Row(row.idempotency_key).status, OutboxStatus::kSent);
  EXPECT_EQ(store_.Row(row.idempotency_key).remote_message_id, "remote-7");
  ASSERT_EQ(http_.requests().size(), 1u);
  EXPECT_EQ(KeyOf(http_.requests()[0]), row.idempotency_key);
  EXPECT_EQ(http_.requests()[0].body, "webhook: k");
  EXPECT_FALSE(report.next_due.has_value());
}

TEST_F(DispatcherTest, RetriesA500WithBackoffAndTheSameIdempotencyKey) {
  const core::OutboxRow row = Row("k", "hook");
  store_.Add(row);
  http_.Respond(500).Respond(200, {{"X-Id", "r2"}});
  app::ChannelLimits limits;
  limits.backoff.initial_backoff = seconds(10);
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_, limits);
  const app::DispatchReport first = d.RunOnce();
  EXPECT_EQ(first.retried, 1u);
  const core::OutboxRow& after = store_.Row(row.idempotency_key);
  EXPECT_EQ(after.status, OutboxStatus::kPending);
  EXPECT_EQ(after.last_error, "HTTP 500");
  EXPECT_EQ(after.attempts, 1u);
  EXPECT_GE(after.next_attempt_at, kT0);
  EXPECT_LE(after.next_attempt_at, kT0 + seconds(10));  // full jitter below the first backoff
  ASSERT_TRUE(first.next_due.has_value());
  EXPECT_EQ(*first.next_due, after.next_attempt_at);

  clock_.SleepFor(seconds(10));
  const app::DispatchReport second = d.RunOnce();
  EXPECT_EQ(second.sent, 1u);
  EXPECT_EQ(store_.Row(row.idempotency_key).attempts, 2u);
  ASSERT_EQ(http_.requests().size(), 2u);
  EXPECT_EQ(KeyOf(http_.requests()[0]), row.idempotency_key);
  EXPECT_EQ(KeyOf(http_.requests()[1]), row.idempotency_key);
}

TEST_F(DispatcherTest, HonoursRetryAfterUpToItsCap) {
  const core::OutboxRow a = Row("a", "hook");
  const core::OutboxRow b = Row("b", "hook");
  store_.Add(a);
  store_.Add(b);
  http_.Respond(429, {{"Retry-After", "120"}}).Respond(503, {{"Retry-After", "86400"}});
  app::ChannelLimits limits;
  limits.backoff.max_retry_after = hours(1);
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_, limits);
  EXPECT_EQ(d.RunOnce().retried, 2u);
  EXPECT_EQ(store_.Row(a.idempotency_key).next_attempt_at, kT0 + seconds(120));
  EXPECT_EQ(store_.Row(b.idempotency_key).next_attempt_at, kT0 + hours(1));
}

// A receiver that sheds load until `recovers_at` on the test's clock: 429 with Retry-After: 2,
// then 200. It records every idempotency key it accepted.
class ThrottlingReceiver : public core::HttpBatchClient {
 public:
  ThrottlingReceiver(core::Clock& clock, core::WallTime recovers_at)
      : clock_(clock), recovers_at_(recovers_at) {}
  void SendAll(std::span<const core::HttpExchange> exchanges, std::span<const uint32_t>,
               const std::function<void(size_t, core::Result<core::HttpResponse>)>& done) override {
    for (size_t i = 0; i < exchanges.size(); ++i) {
      ++requests_;
      if (clock_.Now() < recovers_at_) {
        done(i, core::HttpResponse{429, {{"Retry-After", "2"}}, ""});
        continue;
      }
      accepted_.push_back(
          std::string(core::FindHeader(exchanges[i].request.headers, "Idempotency-Key")));
      done(i, core::HttpResponse{200, {}, ""});
    }
  }
  const std::vector<std::string>& accepted() const { return accepted_; }
  int requests() const { return requests_; }

 private:
  core::Clock& clock_;
  core::WallTime recovers_at_;
  std::vector<std::string> accepted_;
  int requests_ = 0;
};

// Runs `d` as the dispatch loop does, sleeping on the fake clock until the next retry is due,
// until `until`; the total of each report's dead rows.
uint64_t RunUntil(app::Dispatcher& d, FakeClock& clock, core::WallTime until) {
  uint64_t dead = 0;
  while (clock.Now() < until) {
    const app::DispatchReport report = d.RunOnce();
    dead += report.dead;
    const core::WallTime now = clock.Now();
    clock.SleepFor(report.next_due && *report.next_due > now ? *report.next_due - now : seconds(1));
  }
  return dead;
}

TEST_F(DispatcherTest, A429StormOfAMinuteWithRetryAfterCostsNoOpenItsDelivery) {
  std::vector<core::OutboxRow> rows;
  for (const char* key : {"a", "b", "c", "d", "e"}) rows.push_back(Row(key, "hook"));
  for (const core::OutboxRow& row : rows) store_.Add(row);
  ThrottlingReceiver receiver(clock_, kT0 + seconds(60));
  app::ChannelLimits limits;
  limits.max_attempts = 8;  // 30 throttled answers per row would have spent it four times over
  app::Dispatcher d(store_, renderer_, receiver, clock_, Options("ops"));
  d.AddHttpChannel("hook", "webhook", webhook_, limits);
  d.AddChannel("ops", "email", ops_);
  EXPECT_EQ(RunUntil(d, clock_, kT0 + minutes(2)), 0u);
  EXPECT_GE(receiver.requests(), 5 * 30);  // Retry-After: 2 honoured, not a longer backoff
  std::vector<std::string> accepted = receiver.accepted();
  std::sort(accepted.begin(), accepted.end());
  std::vector<std::string> expected;
  for (const core::OutboxRow& row : rows) expected.push_back(row.idempotency_key);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(accepted, expected) << "every open once, with its own key";
  for (const core::OutboxRow& row : rows) {
    const core::OutboxRow& after = store_.Row(row.idempotency_key);
    EXPECT_EQ(after.status, OutboxStatus::kSent);
    EXPECT_EQ(after.attempts, 1u) << "throttled answers are not attempts";
    EXPECT_FALSE(after.throttled_since.has_value());
  }
  EXPECT_TRUE(ops_.sent().empty()) << "nothing was dead-lettered";
}

TEST_F(DispatcherTest, ARowThrottledPastItsBudgetIsDeadSayingWhichLimitEndedIt) {
  const core::OutboxRow row = Row("k", "hook");
  store_.Add(row);
  ThrottlingReceiver receiver(clock_, kT0 + hours(24));
  app::ChannelLimits limits;
  limits.throttle_budget = minutes(10);
  app::Dispatcher d(store_, renderer_, receiver, clock_, Options("ops"));
  d.AddHttpChannel("hook", "webhook", webhook_, limits);
  d.AddChannel("ops", "email", ops_);
  EXPECT_EQ(RunUntil(d, clock_, kT0 + minutes(9)), 0u);
  EXPECT_EQ(store_.Row(row.idempotency_key).status, OutboxStatus::kPending);
  EXPECT_EQ(store_.Row(row.idempotency_key).throttled_since, kT0);
  EXPECT_EQ(RunUntil(d, clock_, kT0 + minutes(11)), 1u);
  const core::OutboxRow& dead = store_.Row(row.idempotency_key);
  EXPECT_EQ(dead.status, OutboxStatus::kDead);
  EXPECT_EQ(dead.last_error, "HTTP 429 (rate limited for 10m0s, budget of 10m0s exhausted)");
  clock_.SleepFor(minutes(5));
  d.RunOnce();
  ASSERT_EQ(ops_.sent().size(), 1u);
  EXPECT_NE(ops_.sent()[0].message.body.find("budget of 10m0s exhausted"), std::string::npos);
}

TEST_F(DispatcherTest, AThrottledRunEndsWithAnyOtherAnswerAndFailuresKeepTheAttemptLimit) {
  const core::OutboxRow row = Row("k", "hook");
  store_.Add(row);
  http_.Respond(429).Respond(500).Respond(429).Respond(500);
  app::ChannelLimits limits;
  limits.max_attempts = 2;
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_, limits);
  d.RunOnce();
  EXPECT_EQ(store_.Row(row.idempotency_key).throttled_since, kT0);
  EXPECT_EQ(store_.Row(row.idempotency_key).attempts, 0u);
  clock_.SleepFor(hours(1));
  d.RunOnce();
  EXPECT_FALSE(store_.Row(row.idempotency_key).throttled_since.has_value());
  EXPECT_EQ(store_.Row(row.idempotency_key).attempts, 1u);
  clock_.SleepFor(hours(1));
  d.RunOnce();
  EXPECT_EQ(store_.Row(row.idempotency_key).throttled_since, kT0 + hours(2));
  clock_.SleepFor(hours(1));
  EXPECT_EQ(d.RunOnce().dead, 1u);
  EXPECT_EQ(store_.Row(row.idempotency_key).last_error, "HTTP 500 (gave up after 2 attempts)");
}

TEST_F(DispatcherTest, RetentionTrimsFinishedRowsInBatchesAtItsInterval) {
  for (int i = 0; i < 25; ++i) {
    core::OutboxRow row = Row("old" + std::to_string(i), "hook");
    row.status = OutboxStatus::kSent;
    row.updated_at = kT0 - hours(24 * 31);
    store_.Add(row);
  }
  core::OutboxRow recent = Row("recent", "hook");
  recent.status = OutboxStatus::kSent;
  recent.updated_at = kT0 - hours(24);
  store_.Add(recent);
  core::OutboxRow waiting = Row("waiting", "hook");
  waiting.next_attempt_at = kT0 + hours(1);
  waiting.updated_at = kT0 - hours(24 * 40);
  store_.Add(waiting);
  app::DispatcherOptions options = Options("");
  options.outbox_retention = hours(24 * 30);
  options.trim_batch = 10;
  options.trim_batches = 2;
  options.trim_interval = minutes(10);
  auto d = Make(options);
  d.AddHttpChannel("hook", "webhook", webhook_);
  EXPECT_EQ(d.RunOnce().trimmed, 20u);  // two batches this round, more left
  EXPECT_EQ(d.RunOnce().trimmed, 5u);   // the rest at once, the next round
  EXPECT_EQ(d.RunOnce().trimmed, 0u);   // then not before the interval
  EXPECT_EQ(store_.trim_calls(), (std::vector<size_t>{10, 10, 5}));
  EXPECT_EQ(store_.rows().size(), 2u);
  EXPECT_EQ(store_.Row(recent.idempotency_key).status, OutboxStatus::kSent);
  EXPECT_EQ(store_.Row(waiting.idempotency_key).status, OutboxStatus::kPending);
  clock_.SleepFor(minutes(10));
  d.RunOnce();
  EXPECT_EQ(store_.trim_calls().size(), 4u);
}

// The trim cadence is measured in monotonic time: the wall jumping a day ahead brings no trim
// forward, and jumping back delays none.
TEST_F(DispatcherTest, AWallClockStepMovesNoTrimCadence) {
  core::OutboxRow row = Row("old", "hook");
  row.status = OutboxStatus::kSent;
  row.updated_at = kT0 - hours(24 * 31);
  store_.Add(row);
  app::DispatcherOptions options = Options("");
  options.outbox_retention = hours(24 * 30);
  options.trim_interval = minutes(10);
  auto d = Make(options);
  d.AddHttpChannel("hook", "webhook", webhook_);
  d.RunOnce();
  ASSERT_EQ(store_.trim_calls().size(), 1u);
  clock_.StepWall(hours(24));
  d.RunOnce();
  EXPECT_EQ(store_.trim_calls().size(), 1u) << "ten monotonic minutes have not passed";
  clock_.StepWall(-hours(48));
  clock_.SleepFor(minutes(10));
  d.RunOnce();
  EXPECT_EQ(store_.trim_calls().size(), 2u) << "ten monotonic minutes have passed";
}

TEST_F(DispatcherTest, APermanent400IsDeadAtOnceAndItsNoticeGoesAtTheIntervalsEnd) {
  const core::OutboxRow row = Row("k", "hook");
  store_.Add(row);
  http_.Respond(400);
  auto d = Make(Options("ops"));
  d.AddHttpChannel("hook", "webhook", webhook_);
  d.AddChannel("ops", "email", ops_);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.dead, 1u);
  EXPECT_EQ(store_.Row(row.idempotency_key).status, OutboxStatus::kDead);
  EXPECT_EQ(store_.Row(row.idempotency_key).attempts, 1u);
  EXPECT_EQ(store_.Row(row.idempotency_key).last_error, "HTTP 400");
  // The notice was written with the death, due at the end of its 5-minute window.
  const core::OutboxRow notice =
      core::MakeDeadLetterRow("ops", core::DeadLetterWindowAt(kT0, minutes(5)), kT0);
  EXPECT_EQ(store_.Row(notice.idempotency_key).status, OutboxStatus::kPending);
  EXPECT_EQ(store_.Row(notice.idempotency_key).next_attempt_at, kT0 + minutes(5));
  EXPECT_TRUE(ops_.sent().empty());

  clock_.SleepFor(minutes(5));
  EXPECT_EQ(d.RunOnce().meta_alerts, 1u);
  ASSERT_EQ(ops_.sent().size(), 1u);
  const core::Delivery sent = ops_.sent()[0];
  EXPECT_EQ(sent.row.idempotency_key, notice.idempotency_key);
  EXPECT_EQ(core::MessageKindOf(sent.row), core::MessageKind::kDeadLetter);
  EXPECT_NE(sent.message.body.find("HTTP 400"), std::string::npos);
  EXPECT_NE(sent.message.body.find("k on hook"), std::string::npos);
  EXPECT_EQ(store_.Row(notice.idempotency_key).status, OutboxStatus::kSent);
}

TEST_F(DispatcherTest, FiveRowsDyingInOneIntervalMakeOneNoticeListingAllFive) {
  for (const char* key : {"a", "b", "c", "d", "e"}) store_.Add(Row(key, "hook"));
  http_.Respond(400);
  auto d = Make(Options("ops", 256, /*record_every=*/2));  // deaths over three transactions
  d.AddHttpChannel("hook", "webhook", webhook_);
  d.AddChannel("ops", "email", ops_);
  EXPECT_EQ(d.RunOnce().dead, 5u);
  size_t notices = 0;
  for (const auto& [id, row] : store_.rows()) notices += core::IsDeadLetterKey(row.key) ? 1u : 0u;
  EXPECT_EQ(notices, 1u);

  clock_.SleepFor(minutes(5));
  d.RunOnce();
  clock_.SleepFor(minutes(5));
  d.RunOnce();
  ASSERT_EQ(ops_.sent().size(), 1u);
  const core::Delivery sent = ops_.sent()[0];
  EXPECT_NE(sent.message.subject.find("5 messages"), std::string::npos) << sent.message.subject;
  for (const char* key : {"a", "b", "c", "d", "e"}) {
    EXPECT_NE(sent.message.body.find("- " + std::string(key) + " on hook: open, 1 attempt"),
              std::string::npos)
        << key << " in " << sent.message.body;
  }
  EXPECT_NE(sent.row.payload.find("\"count\":5"), std::string::npos) << sent.row.payload;
}

TEST_F(DispatcherTest, ADeathInTheNextIntervalGetsTheNextNotice) {
  store_.Add(Row("a", "hook"));
  http_.Respond(400);
  auto d = Make(Options("ops"));
  d.AddHttpChannel("hook", "webhook", webhook_);
  d.AddChannel("ops", "email", ops_);
  d.RunOnce();
  clock_.SleepFor(minutes(5));
  store_.Add(Row("b", "hook"));
  d.RunOnce();  // sends a's notice, and b dies in the next window
  clock_.SleepFor(minutes(5));
  d.RunOnce();
  ASSERT_EQ(ops_.sent().size(), 2u);
  EXPECT_NE(ops_.sent()[0].message.body.find("- a on hook"), std::string::npos);
  EXPECT_EQ(ops_.sent()[0].message.body.find("- b on hook"), std::string::npos);
  EXPECT_NE(ops_.sent()[1].message.body.find("- b on hook"), std::string::npos);
  EXPECT_NE(ops_.sent()[0].row.idempotency_key, ops_.sent()[1].row.idempotency_key);
}

TEST_F(DispatcherTest, ANoticeListsAtMostTwentyRowsAndSaysHowManyMore) {
  for (int i = 0; i < 23; ++i) store_.Add(Row("k" + std::to_string(100 + i), "hook"));
  http_.Respond(400);
  auto d = Make(Options("ops"));
  d.AddHttpChannel("hook", "webhook", webhook_);
  d.AddChannel("ops", "email", ops_);
  d.RunOnce();
  clock_.SleepFor(minutes(5));
  d.RunOnce();
  ASSERT_EQ(ops_.sent().size(), 1u);
  const std::string body = ops_.sent()[0].message.body;
  EXPECT_NE(body.find("- k119 on hook"), std::string::npos);
  EXPECT_EQ(body.find("- k120 on hook"), std::string::npos);
  EXPECT_NE(body.find("... and 3 more"), std::string::npos) << body;
}

TEST_F(DispatcherTest, ANoticeWhoseRowsWereAllRetriedIsRecordedWithoutASend) {
  const core::OutboxRow row = Row("k", "hook");
  store_.Add(row);
  http_.Respond(400);
  auto d = Make(Options("ops"));
  d.AddHttpChannel("hook", "webhook", webhook_);
  d.AddChannel("ops", "email", ops_);
  d.RunOnce();
  core::OutboxRow retried = store_.Row(row.idempotency_key);
  retried.status = OutboxStatus::kPending;  // what `quell outbox dead retry` does
  retried.next_attempt_at = kT0 + hours(1);
  store_.Add(retried);
  clock_.SleepFor(minutes(5));
  d.RunOnce();
  EXPECT_TRUE(ops_.sent().empty());
  const core::OutboxRow notice =
      core::MakeDeadLetterRow("ops", core::DeadLetterWindowAt(kT0, minutes(5)), kT0);
  EXPECT_EQ(store_.Row(notice.idempotency_key).status, OutboxStatus::kSent);
}

// The webhook URL with ?apikey=: a transport error names the URL it failed on, and the
// row's last_error (shown by the outbox listing and the timeline) kept the key. A provider's
// answer quoting an e-mail is the provider's words, redacted the same way.
TEST_F(DispatcherTest, AFailedSendsErrorIsStoredRedacted) {
  const core::OutboxRow row = Row("k", "hook");
  store_.Add(row);
  http_.Fail(core::ErrorCode::kUnavailable,
             "POST https://hooks.test/w?apikey=SECRET123&team=ops: Failed to connect for "
             "ops@acme.example");
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_);
  EXPECT_EQ(d.RunOnce().retried, 1u);
  const std::string& error = store_.Row(row.idempotency_key).last_error;
  EXPECT_NE(error.find("POST https://hooks.test/w?apikey=[redacted]&team=[redacted]"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("SECRET123"), std::string::npos) << error;
  EXPECT_EQ(error.find("ops@acme.example"), std::string::npos) << error;
}

TEST_F(DispatcherTest, TheAttemptLimitMakesARowDeadAndAlertsOnce) {
  const core::OutboxRow row = Row("k", "hook");
  store_.Add(row);
  http_.Respond(500);  // always
  app::ChannelLimits limits;
  limits.max_attempts = 3;
  auto d = Make(Options("ops"));
  d.AddHttpChannel("hook", "webhook", webhook_, limits);
  d.AddChannel("ops", "email", ops_);
  uint64_t retried = 0, dead = 0, alerts = 0;
  for (int run = 0; run < 6; ++run) {
    const app::DispatchReport report = d.RunOnce();
    retried += report.retried;
    dead += report.dead;
    alerts += report.meta_alerts;
    clock_.SleepFor(hours(1));
  }
  EXPECT_EQ(retried, 2u);
  EXPECT_EQ(dead, 1u);
  EXPECT_EQ(alerts, 1u);
  EXPECT_EQ(http_.requests().size(), 3u);
  EXPECT_EQ(store_.Row(row.idempotency_key).status, OutboxStatus::kDead);
  EXPECT_NE(store_.Row(row.idempotency_key).last_error.find("gave up after 3 attempts"),
            std::string::npos);
  EXPECT_EQ(ops_.sent().size(), 1u);
}

TEST_F(DispatcherTest, ALostLeaseIsCountedAndNothingIsRecorded) {
  const core::OutboxRow lost = Row("a", "hook");
  const core::OutboxRow kept = Row("b", "hook");
  store_.Add(lost);
  store_.Add(kept);
  store_.LoseLeaseBeforeRecord(lost.idempotency_key);
  http_.Respond(400);
  auto d = Make(Options("ops"));
  d.AddHttpChannel("hook", "webhook", webhook_);
  d.AddChannel("ops", "email", ops_);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.lost_leases, 1u);
  EXPECT_EQ(report.dead, 1u);
  EXPECT_TRUE(report.errors.empty());
  EXPECT_EQ(store_.Row(lost.idempotency_key).status, OutboxStatus::kInFlight);
  EXPECT_EQ(store_.Row(lost.idempotency_key).lease_owner, "thief");
  clock_.SleepFor(minutes(5));
  d.RunOnce();
  ASSERT_EQ(ops_.sent().size(), 1u);
  EXPECT_EQ(ops_.sent()[0].message.body.find("- a on hook"), std::string::npos)
      << "no notice for a row this dispatcher lost";
  EXPECT_NE(ops_.sent()[0].message.body.find("- b on hook"), std::string::npos);
}

TEST_F(DispatcherTest, AFailedRecordLeavesRowsLeasedAndIsReported) {
  const core::OutboxRow row = Row("k", "hook");
  store_.Add(row);
  store_.FailNextRecord(1, core::ErrorCode::kUnavailable);
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.sent, 0u);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_NE(report.errors[0].find("injected record failure"), std::string::npos);
  EXPECT_EQ(store_.Row(row.idempotency_key).status, OutboxStatus::kInFlight);
}

TEST_F(DispatcherTest, KeepsEachChannelsConcurrencyInOneBatch) {
  for (int i = 0; i < 5; ++i) store_.Add(Row("s" + std::to_string(i), "slack"));
  for (int i = 0; i < 4; ++i) store_.Add(Row("w" + std::to_string(i), "hook"));
  FakeChannel mail(2, 6);
  for (int i = 0; i < 6; ++i) store_.Add(Row("m" + std::to_string(i), "mail"));
  app::ChannelLimits two, three;
  two.concurrency = 2;
  three.concurrency = 3;
  auto d = Make();
  d.AddHttpChannel("slack", "slack", slack_, two);
  d.AddHttpChannel("hook", "webhook", webhook_, three);
  d.AddChannel("mail", "email", mail, two);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.sent, 15u);
  EXPECT_EQ(http_.calls(), 1) << "every HTTP channel in one SendAll";
  EXPECT_EQ(http_.limits(), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(http_.max_in_flight(0), 2);
  EXPECT_EQ(http_.max_in_flight(1), 3);
  for (size_t i = 0; i < http_.requests().size(); ++i) {
    const bool is_slack = http_.requests()[i].url == "https://slack.test/api";
    EXPECT_EQ(http_.lanes()[i], is_slack ? 0u : 1u);
  }
  EXPECT_EQ(mail.sent().size(), 6u);
  EXPECT_EQ(mail.peak(), 2);
}

TEST_F(DispatcherTest, ARenderFailureIsDeadWithoutASend) {
  const core::OutboxRow row = Row("k", "hook", 1, "unrenderable");
  store_.Add(row);
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_);
  EXPECT_EQ(d.RunOnce().dead, 1u);
  EXPECT_EQ(store_.Row(row.idempotency_key).status, OutboxStatus::kDead);
  EXPECT_EQ(store_.Row(row.idempotency_key).last_error, "render: template: no field x");
  EXPECT_TRUE(http_.requests().empty());
}

// The payload is read once per claimed row, rendered from what was read, and the channel gets
// that same message: nothing reads the stored JSON again between the claim and the send.
TEST_F(DispatcherTest, EachPayloadIsReadOnceAndTheChannelGetsWhatWasRead) {
  class ReadingRenderer : public core::MessageRenderer {
   public:
    core::Result<core::RenderedMessage> Render(std::string_view,
                                               const core::OutboxRow&) const override {
      return core::MakeError(core::ErrorCode::kInternal, "rendered from the row again");
    }
    core::Result<core::Message> Decode(const core::OutboxRow& row) const override {
      ++reads;
      if (row.payload == "unreadable") {
        return core::MakeError(core::ErrorCode::kInvalidArgument, "no string \"key\"");
      }
      core::Message message;
      message.incident.key = "read:" + row.payload;
      return message;
    }
    core::Result<core::RenderedMessage> RenderMessage(std::string_view, const core::OutboxRow&,
                                                      const core::Message& message,
                                                      core::WallTime) const override {
      return core::RenderedMessage{message.incident.key, message.incident.key, "error"};
    }
    mutable std::atomic<int> reads{0};
  } renderer;
  class ContentChannel : public core::HttpChannel {
   public:
    core::Result<core::HttpRequest> Encode(const core::Delivery& d, core::WallTime) const override {
      core::HttpRequest request;
      request.method = "POST";
      request.url = "http://hook.test/";
      request.body = d.content.incident.key + "|" + d.message.body;
      return request;
    }
    core::SendOutcome Decode(const core::Delivery&, const core::HttpResponse&) const override {
      return core::SendOutcome::Sent("");
    }
  } channel;
  store_.Add(Row("a", "hook", 1, "p1"));
  store_.Add(Row("b", "hook", 1, "p2"));
  const core::OutboxRow bad = Row("c", "hook", 1, "unreadable");
  store_.Add(bad);
  http_.Respond(200).Respond(200);
  app::Dispatcher d(store_, renderer, http_, clock_, Options(""));
  d.AddHttpChannel("hook", "webhook", channel);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(renderer.reads.load(), 3);
  EXPECT_EQ(report.sent, 2u);
  ASSERT_EQ(http_.requests().size(), 2u);
  EXPECT_EQ(http_.requests()[0].body, "read:p1|read:p1");
  EXPECT_EQ(http_.requests()[1].body, "read:p2|read:p2");
  EXPECT_EQ(store_.Row(bad.idempotency_key).status, OutboxStatus::kDead);
  EXPECT_EQ(store_.Row(bad.idempotency_key).last_error, "render: no string \"key\"");
}

TEST_F(DispatcherTest, AnEncodeFailureIsDeadWithoutASend) {
  const core::OutboxRow row = Row("k", "hook", 1, "unencodable");
  store_.Add(row);
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_);
  EXPECT_EQ(d.RunOnce().dead, 1u);
  EXPECT_EQ(store_.Row(row.idempotency_key).last_error, "encode: no recipient");
  EXPECT_TRUE(http_.requests().empty());
}

TEST_F(DispatcherTest, AnUnknownChannelIsDead) {
  const core::OutboxRow row = Row("k", "removed");
  store_.Add(row);
  auto d = Make(Options("ops"));
  d.AddChannel("ops", "email", ops_);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.dead, 1u);
  EXPECT_EQ(store_.Row(row.idempotency_key).last_error,
            "no channel named \"removed\" is configured");
  clock_.SleepFor(minutes(5));
  EXPECT_EQ(d.RunOnce().meta_alerts, 1u);
}

TEST_F(DispatcherTest, TransportTimeoutsRetryAndMalformedRequestsDie) {
  const core::OutboxRow a = Row("a", "hook");
  const core::OutboxRow b = Row("b", "hook");
  store_.Add(a);
  store_.Add(b);
  http_.Fail(core::ErrorCode::kTimeout, "POST https://hooks.test/w: timed out")
      .Fail(core::ErrorCode::kInvalidArgument, "malformed URL");
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.retried, 1u);
  EXPECT_EQ(report.dead, 1u);
  EXPECT_EQ(store_.Row(a.idempotency_key).status, OutboxStatus::kPending);
  EXPECT_EQ(store_.Row(b.idempotency_key).status, OutboxStatus::kDead);
}

TEST_F(DispatcherTest, KeepsOrderPerIncidentAndChannelAcrossRetries) {
  const core::OutboxRow open = Row("k", "hook", 1);
  const core::OutboxRow resolve = Row("k", "hook", 2);
  const core::OutboxRow other = Row("z", "hook", 1);
  store_.Add(resolve);
  store_.Add(open);
  store_.Add(other);
  http_.Respond(503, {{"Retry-After", "30"}}).Respond(200, {{"X-Id", "m-open"}});
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_);
  d.RunOnce();  // open: 503; z: 200 (the script's last entry repeats)
  clock_.SleepFor(seconds(30));
  d.RunOnce();  // open again: sent
  d.RunOnce();  // only now the resolve, threaded under the open
  std::vector<std::string> order;
  for (const auto& r : http_.requests()) order.push_back(KeyOf(r));
  EXPECT_EQ(order, (std::vector<std::string>{open.idempotency_key, other.idempotency_key,
                                             open.idempotency_key, resolve.idempotency_key}));
  EXPECT_EQ(core::FindHeader(http_.requests()[3].headers, "X-Thread"), "m-open");
  EXPECT_EQ(store_.Row(resolve.idempotency_key).status, OutboxStatus::kSent);
}

TEST_F(DispatcherTest, RecordsOutcomesInBatches) {
  for (int i = 0; i < 10; ++i) store_.Add(Row("k" + std::to_string(i), "hook"));
  auto d = Make(Options("", 10, 4));
  d.AddHttpChannel("hook", "webhook", webhook_);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.sent, 10u);
  EXPECT_EQ(report.record_batches, 3u);
  EXPECT_EQ(store_.record_batches(), (std::vector<size_t>{4, 4, 2}));
  ASSERT_TRUE(report.next_due.has_value()) << "a full claim: more may be due";
  EXPECT_EQ(*report.next_due, kT0);
}

TEST_F(DispatcherTest, BlockingChannelFailuresFollowTheSameRules) {
  const core::OutboxRow row = Row("k", "mail");
  store_.Add(row);
  FakeChannel mail;
  mail.Answer(core::SendOutcome::Retry("421 try later", seconds(90)));
  auto d = Make();
  d.AddChannel("mail", "email", mail);
  EXPECT_EQ(d.RunOnce().retried, 1u);
  EXPECT_EQ(store_.Row(row.idempotency_key).next_attempt_at, kT0 + seconds(90));
  ASSERT_EQ(mail.sent().size(), 1u);
  EXPECT_EQ(mail.sent()[0].message.body, "email: k");
}

TEST_F(DispatcherTest, QuietHoursDeferAnSmsWithoutUsingAnAttempt) {
  // kT0 is 09:00 UTC; quiet 08:00-10:00 UTC holds an "error" SMS until 10:00.
  const core::OutboxRow row = Row("acme:k", "sms");
  store_.Add(row);
  http_.Respond(201, {{"X-Id", "SM1"}});
  app::ChannelLimits limits;
  limits.max_attempts = 1;
  limits.pacing = core::SmsPacingRules{};
  limits.pacing->quiet_hours = core::QuietHours{8 * 60, 10 * 60};
  auto d = Make();
  d.AddHttpChannel("sms", "sms", webhook_, limits);
  const app::DispatchReport held = d.RunOnce();
  EXPECT_EQ(held.deferred, 1u);
  EXPECT_EQ(held.dead, 0u);
  EXPECT_TRUE(http_.requests().empty());
  const core::OutboxRow& after = store_.Row(row.idempotency_key);
  EXPECT_EQ(after.status, OutboxStatus::kPending);
  EXPECT_EQ(after.attempts, 0u);  // a deferral is not a failed attempt
  EXPECT_EQ(after.next_attempt_at, kT0 + hours(1));
  EXPECT_NE(after.last_error.find("quiet hours"), std::string::npos);

  clock_.SleepFor(hours(1));
  const app::DispatchReport sent = d.RunOnce();
  EXPECT_EQ(sent.sent, 1u);
  ASSERT_EQ(http_.requests().size(), 1u);
  EXPECT_EQ(KeyOf(http_.requests()[0]), row.idempotency_key);
}

TEST_F(DispatcherTest, ACriticalSmsIgnoresQuietHoursButTheMinimumIntervalHoldsTheNext) {
  class CriticalRenderer : public core::MessageRenderer {
   public:
    core::Result<core::RenderedMessage> Render(std::string_view,
                                               const core::OutboxRow& row) const override {
      return core::RenderedMessage{row.key, row.key, "critical"};
    }
  } critical;
  store_.Add(Row("acme:a", "sms"));
  store_.Add(Row("acme:b", "sms"));
  http_.Respond(201).Respond(201);
  app::ChannelLimits limits;
  limits.pacing = core::SmsPacingRules{};
  limits.pacing->quiet_hours = core::QuietHours{8 * 60, 10 * 60};
  limits.pacing->min_interval = std::chrono::minutes(10);
  app::Dispatcher d(store_, critical, http_, clock_, Options(""));
  d.AddHttpChannel("sms", "sms", webhook_, limits);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.sent, 1u);
  EXPECT_EQ(report.deferred, 1u);  // the second is within the interval of the first
  EXPECT_EQ(http_.requests().size(), 1u);
}

TEST_F(DispatcherTest, ADigestRowListsTheRowsItsTenantFolded) {
  const core::BudgetWindow window = core::HourWindow(kT0);
  for (const char* key : {"acme:a", "acme:b", "beta:c"}) {
    core::OutboxRow folded = Row(key, "hook");
    folded.status = OutboxStatus::kFolded;
    folded.created_at = kT0;
    store_.Add(folded);
  }
  const core::OutboxRow digest = core::MakeDigestRow("acme", "hook", window, kT0);
  store_.Add(digest);
  http_.Respond(200);
  auto d = Make();
  d.AddHttpChannel("hook", "webhook", webhook_);
  EXPECT_EQ(d.RunOnce().claimed, 0u);  // due only when the hour ends
  clock_.SleepFor(hours(1));
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.sent, 1u);
  ASSERT_EQ(http_.requests().size(), 1u);
  const std::string& body = http_.requests()[0].body;
  EXPECT_NE(body.find("2 more notifications for tenant acme"), std::string::npos) << body;
  EXPECT_NE(body.find("acme:a"), std::string::npos);
  EXPECT_NE(body.find("acme:b"), std::string::npos);
  EXPECT_EQ(body.find("beta:c"), std::string::npos);
  EXPECT_EQ(store_.Row(digest.idempotency_key).status, OutboxStatus::kSent);
}

TEST(DispatcherClaimAheadTest, DeliversEveryRowOnceInOrderWhileClaimingTheNextBatchAhead) {
  FakeOutboxStore fake;
  std::mutex mutex;
  SharedOutboxStore main_store(fake, mutex);
  SharedOutboxStore ahead_store(fake, mutex);
  // Seven incidents with an open and a resolve each: the resolve may only go after its open,
  // which is in flight in the batch ahead of it.
  std::vector<core::OutboxRow> rows;
  for (int i = 0; i < 7; ++i) {
    rows.push_back(Row("acme:k" + std::to_string(i), "hook", 1));
    rows.push_back(Row("acme:k" + std::to_string(i), "hook", 2));
  }
  for (const core::OutboxRow& row : rows) fake.Add(row);
  FakeRenderer renderer;
  FakeHttpBatchClient http;
  for (size_t i = 0; i < rows.size(); ++i) http.Respond(200);
  FakeClock clock{kT0};
  FakeHttpChannel webhook{"https://hooks.test/w"};
  app::Dispatcher d(main_store, renderer, http, clock, Options("", /*claim_batch=*/4, 2));
  d.ClaimAheadWith(ahead_store);
  d.AddHttpChannel("hook", "webhook", webhook);
  uint64_t sent = 0;
  for (int round = 0; round < 20; ++round) {
    const app::DispatchReport report = d.RunOnce();
    EXPECT_TRUE(report.errors.empty());
    sent += report.sent;
    if (report.claimed == 0) break;
  }
  EXPECT_EQ(sent, rows.size());
  std::map<std::string, int> times_sent;
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < http.requests().size(); ++i) {
    const std::string key =
        std::string(core::FindHeader(http.requests()[i].headers, "Idempotency-Key"));
    ++times_sent[key];
    position[key] = i;
  }
  for (const core::OutboxRow& row : rows) {
    EXPECT_EQ(times_sent[row.idempotency_key], 1) << row.idempotency_key;
    EXPECT_EQ(fake.Row(row.idempotency_key).status, OutboxStatus::kSent);
    EXPECT_EQ(fake.Row(row.idempotency_key).attempts, 1u);
  }
  for (size_t i = 0; i < rows.size(); i += 2) {
    EXPECT_LT(position[rows[i].idempotency_key], position[rows[i + 1].idempotency_key])
        << "the resolve of " << rows[i].key << " went before its open";
  }
}

TEST(DispatcherClaimAheadTest, ABatchClaimedAheadAndNeverSentGoesBackToPendingUncounted) {
  FakeOutboxStore fake;
  std::mutex mutex;
  SharedOutboxStore main_store(fake, mutex);
  SharedOutboxStore ahead_store(fake, mutex);
  std::vector<core::OutboxRow> rows;
  for (int i = 0; i < 6; ++i) rows.push_back(Row("acme:k" + std::to_string(i), "hook"));
  for (const core::OutboxRow& row : rows) fake.Add(row);
  FakeRenderer renderer;
  FakeHttpBatchClient http;
  for (int i = 0; i < 3; ++i) http.Respond(200);
  FakeClock clock{kT0};
  FakeHttpChannel webhook{"https://hooks.test/w"};
  {
    app::Dispatcher d(main_store, renderer, http, clock, Options("", /*claim_batch=*/3));
    d.ClaimAheadWith(ahead_store);
    d.AddHttpChannel("hook", "webhook", webhook);
    EXPECT_EQ(d.RunOnce().sent, 3u);  // full: the next three were claimed ahead meanwhile
  }                                   // the dispatcher stops here, holding them
  EXPECT_EQ(http.requests().size(), 3u);
  for (size_t i = 3; i < rows.size(); ++i) {
    const core::OutboxRow& row = fake.Row(rows[i].idempotency_key);
    EXPECT_EQ(row.status, OutboxStatus::kPending) << row.idempotency_key;
    EXPECT_EQ(row.attempts, 0u);
    EXPECT_TRUE(row.lease_owner.empty());
    EXPECT_LE(row.next_attempt_at, clock.Now());
  }
}

// Notes the thread each row was rendered on.
class ThreadNotingRenderer : public core::MessageRenderer {
 public:
  core::Result<core::RenderedMessage> Render(std::string_view type,
                                             const core::OutboxRow& row) const override {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      threads_[row.key] = std::this_thread::get_id();
    }
    return inner_.Render(type, row);
  }
  std::thread::id ThreadOf(const std::string& key) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return threads_.at(key);
  }

 private:
  FakeRenderer inner_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::thread::id> threads_;
};

TEST(DispatcherClaimAheadTest, RendersTheBatchClaimedAheadOnTheClaimAheadsThread) {
  FakeOutboxStore fake;
  std::mutex mutex;
  SharedOutboxStore main_store(fake, mutex);
  SharedOutboxStore ahead_store(fake, mutex);
  for (int i = 0; i < 6; ++i) fake.Add(Row("acme:k" + std::to_string(i), "hook"));
  ThreadNotingRenderer renderer;
  FakeHttpBatchClient http;
  for (int i = 0; i < 6; ++i) http.Respond(200);
  FakeClock clock{kT0};
  FakeHttpChannel webhook{"https://hooks.test/w"};
  app::DispatcherOptions options = Options("", /*claim_batch=*/3);
  options.prepare_threads = 1;  // without a claim ahead, every render is on this thread
  app::Dispatcher d(main_store, renderer, http, clock, options);
  d.ClaimAheadWith(ahead_store);
  d.AddHttpChannel("hook", "webhook", webhook);
  EXPECT_EQ(d.RunOnce().sent, 3u);
  EXPECT_EQ(d.RunOnce().sent, 3u);
  const std::thread::id me = std::this_thread::get_id();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(renderer.ThreadOf("acme:k" + std::to_string(i)), me);
  for (int i = 3; i < 6; ++i) {
    EXPECT_NE(renderer.ThreadOf("acme:k" + std::to_string(i)), me)
        << "rendered while the first batch was on the wire, not after it";
  }
  EXPECT_EQ(http.requests().size(), 6u);
}

// Notes the threads outcomes were recorded on.
class ThreadNotingOutboxStore : public SharedOutboxStore {
 public:
  using SharedOutboxStore::SharedOutboxStore;
  core::Result<std::vector<core::Status>> RecordOutcomes(
      std::string_view owner, std::span<const core::OutboxOutcome> outcomes,
      core::WallTime now) override {
    threads_.push_back(std::this_thread::get_id());
    return SharedOutboxStore::RecordOutcomes(owner, outcomes, now);
  }
  const std::vector<std::thread::id>& threads() const { return threads_; }

 private:
  std::vector<std::thread::id> threads_;  // one transaction at a time: no lock needed
};

TEST(DispatcherRecordTest, RecordsEachGroupOfOutcomesBesideTheSendsAndCountsThemAll) {
  FakeOutboxStore fake;
  std::mutex mutex;
  ThreadNotingOutboxStore store(fake, mutex);
  for (int i = 0; i < 5; ++i) fake.Add(Row("acme:k" + std::to_string(i), "hook"));
  FakeRenderer renderer;
  FakeHttpBatchClient http;
  for (int i = 0; i < 5; ++i) http.Respond(200);
  FakeClock clock{kT0};
  FakeHttpChannel webhook{"https://hooks.test/w"};
  app::Dispatcher d(store, renderer, http, clock, Options("", 256, /*record_every=*/2));
  d.AddHttpChannel("hook", "webhook", webhook);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_EQ(report.sent, 5u);
  EXPECT_EQ(report.record_batches, 3u);
  EXPECT_EQ(fake.record_batches(), (std::vector<size_t>{2, 2, 1}));
  ASSERT_EQ(store.threads().size(), 3u);
  for (const std::thread::id& thread : store.threads()) {
    EXPECT_NE(thread, std::this_thread::get_id()) << "the sending thread waited for the store";
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(fake.Row(Row("acme:k" + std::to_string(i), "hook").idempotency_key).status,
              OutboxStatus::kSent);
  }
}

app::DispatcherOptions RoundOptions(size_t claim_batch, uint32_t batches_per_round) {
  app::DispatcherOptions options = Options("", claim_batch, /*record_every=*/claim_batch);
  options.batches_per_round = batches_per_round;
  return options;
}

TEST(DispatcherRoundTest, GoesOnWithTheBatchesClaimedAheadEachRowOnceInOrder) {
  FakeOutboxStore fake;
  std::mutex mutex;
  SharedOutboxStore main_store(fake, mutex);
  SharedOutboxStore ahead_store(fake, mutex);
  // An open and a resolve for each of nine incidents: a resolve is claimable only once its
  // open's outcome is recorded, which a round now writes while the next batch is on the wire.
  std::vector<core::OutboxRow> rows;
  for (int i = 0; i < 9; ++i) {
    rows.push_back(Row("acme:k" + std::to_string(i), "hook", 1));
    rows.push_back(Row("acme:k" + std::to_string(i), "hook", 2));
  }
  for (const core::OutboxRow& row : rows) fake.Add(row);
  FakeRenderer renderer;
  FakeHttpBatchClient http;
  FakeClock clock{kT0};
  FakeHttpChannel webhook{"https://hooks.test/w"};
  app::Dispatcher d(main_store, renderer, http, clock, RoundOptions(/*claim_batch=*/3, 16));
  d.ClaimAheadWith(ahead_store);
  d.AddHttpChannel("hook", "webhook", webhook);
  const app::DispatchReport first = d.RunOnce();
  EXPECT_TRUE(first.errors.empty());
  EXPECT_GT(first.claimed, 3u) << "the round stopped after its first full batch";
  EXPECT_EQ(first.sent, first.claimed);
  uint64_t sent = first.sent;
  for (int round = 0; round < 20; ++round) {
    const app::DispatchReport report = d.RunOnce();
    EXPECT_TRUE(report.errors.empty());
    EXPECT_EQ(report.sent, report.claimed);
    sent += report.sent;
    if (report.claimed == 0) break;
  }
  EXPECT_EQ(sent, rows.size());
  std::map<std::string, int> times_sent;
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < http.requests().size(); ++i) {
    const std::string key =
        std::string(core::FindHeader(http.requests()[i].headers, "Idempotency-Key"));
    ++times_sent[key];
    position[key] = i;
  }
  for (const core::OutboxRow& row : rows) {
    EXPECT_EQ(times_sent[row.idempotency_key], 1) << row.idempotency_key;
    EXPECT_EQ(fake.Row(row.idempotency_key).status, OutboxStatus::kSent);
    EXPECT_EQ(fake.Row(row.idempotency_key).attempts, 1u);
    EXPECT_TRUE(fake.Row(row.idempotency_key).lease_owner.empty());
  }
  for (size_t i = 0; i < rows.size(); i += 2) {
    EXPECT_LT(position[rows[i].idempotency_key], position[rows[i + 1].idempotency_key])
        << "the resolve of " << rows[i].key << " went before its open";
  }
}

TEST(DispatcherRoundTest, SendsNoMoreBatchesARoundThanItsOptionsAllow) {
  FakeOutboxStore fake;
  std::mutex mutex;
  SharedOutboxStore main_store(fake, mutex);
  SharedOutboxStore ahead_store(fake, mutex);
  for (int i = 0; i < 12; ++i) fake.Add(Row("acme:k" + std::to_string(i), "hook"));
  FakeRenderer renderer;
  FakeHttpBatchClient http;
  FakeClock clock{kT0};
  FakeHttpChannel webhook{"https://hooks.test/w"};
  {
    app::Dispatcher d(main_store, renderer, http, clock, RoundOptions(/*claim_batch=*/3, 2));
    d.ClaimAheadWith(ahead_store);
    d.AddHttpChannel("hook", "webhook", webhook);
    const app::DispatchReport report = d.RunOnce();
    EXPECT_EQ(report.claimed, 6u);
    EXPECT_EQ(report.sent, 6u);
    ASSERT_TRUE(report.next_due.has_value());
    EXPECT_EQ(*report.next_due, clock.Now()) << "full: the next round is due at once";
  }  // the third batch, claimed ahead, goes back to pending unsent
  EXPECT_EQ(http.requests().size(), 6u);
  EXPECT_EQ(fake.record_batches(), (std::vector<size_t>{3, 3, 3}));  // the last: the release
}

// What the threads of a round have done so far, for one to wait on another.
class RoundEvents {
 public:
  void Note(int RoundEvents::*counter) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      ++(this->*counter);
    }
    changed_.notify_all();
  }
  // Whether `counter` reached `n` before a generous wait ran out.
  bool WaitFor(int RoundEvents::*counter, int n) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, seconds(20), [&] { return this->*counter >= n; });
  }
  int ahead_claims = 0;
  int sends = 0;  // SendAll calls begun

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
};

// Starts its first batch only once the claim ahead is done, so that claim (which takes turns
// with outcome transactions) cannot queue behind the transaction the claim-ahead connection holds.
class SignallingHttpBatchClient : public FakeHttpBatchClient {
 public:
  explicit SignallingHttpBatchClient(RoundEvents& events) : events_(events) {}
  void SendAll(std::span<const core::HttpExchange> exchanges, std::span<const uint32_t> lane_limits,
               const std::function<void(size_t, core::Result<core::HttpResponse>)>& done) override {
    EXPECT_TRUE(events_.WaitFor(&RoundEvents::ahead_claims, 1));
    events_.Note(&RoundEvents::sends);
    FakeHttpBatchClient::SendAll(exchanges, lane_limits, done);
  }

 private:
  RoundEvents& events_;
};

// Notes each claim (a claim-ahead connection).
class ClaimNotingStore : public SharedOutboxStore {
 public:
  ClaimNotingStore(FakeOutboxStore& inner, std::mutex& mutex, RoundEvents& events)
      : SharedOutboxStore(inner, mutex), events_(events) {}
  core::Result<std::vector<core::OutboxRow>> ClaimDue(std::string_view owner, core::WallTime now,
                                                      core::Duration lease, size_t limit) override {
    auto claimed = SharedOutboxStore::ClaimDue(owner, now, lease, limit);
    events_.Note(&RoundEvents::ahead_claims);
    return claimed;
  }

 private:
  RoundEvents& events_;
};

// A connection whose first outcome transaction lasts until `counter` of the round's events
// reaches `count` (or a generous wait gives up): came() says the dispatcher did that work while
// the transaction was held. With note_claims its claims count as the claims ahead (it is the
// claim-ahead connection).
class WaitingRecordStore : public ClaimNotingStore {
 public:
  WaitingRecordStore(FakeOutboxStore& inner, std::mutex& mutex, RoundEvents& events,
                     int RoundEvents::*counter, int count, bool note_claims)
      : ClaimNotingStore(inner, mutex, events),
        events_(events),
        counter_(counter),
        count_(count),
        note_claims_(note_claims) {}
  core::Result<std::vector<core::OutboxRow>> ClaimDue(std::string_view owner, core::WallTime now,
                                                      core::Duration lease, size_t limit) override {
    if (note_claims_) return ClaimNotingStore::ClaimDue(owner, now, lease, limit);
    return SharedOutboxStore::ClaimDue(owner, now, lease, limit);
  }
  core::Result<std::vector<core::Status>> RecordOutcomes(
      std::string_view owner, std::span<const core::OutboxOutcome> outcomes,
      core::WallTime now) override {
    if (records_++ == 0) came_ = events_.WaitFor(counter_, count_);
    return SharedOutboxStore::RecordOutcomes(owner, outcomes, now);
  }
  int records() const { return records_; }
  bool came() const { return came_; }

 private:
  RoundEvents& events_;
  int RoundEvents::*counter_;
  int count_;
  bool note_claims_;
  int records_ = 0;  // one transaction at a time
  bool came_ = false;
};

TEST(DispatcherRoundTest, WritesABatchsOutcomesWhileTheNextBatchIsOnTheWire) {
  FakeOutboxStore fake;
  std::mutex mutex;
  RoundEvents events;
  SignallingHttpBatchClient http(events);
  SharedOutboxStore main_store(fake, mutex);
  // The claim-ahead connection: its first outcome transaction lasts until a second batch is on
  // the wire, which a round waiting for its first batch's outcomes would never send.
  WaitingRecordStore ahead_store(fake, mutex, events, &RoundEvents::sends, 2, /*note_claims=*/true);
  for (int i = 0; i < 6; ++i) fake.Add(Row("acme:k" + std::to_string(i), "hook"));
  FakeRenderer renderer;
  FakeClock clock{kT0};
  FakeHttpChannel webhook{"https://hooks.test/w"};
  app::DispatcherOptions options = RoundOptions(/*claim_batch=*/3, 16);
  app::Dispatcher d(main_store, renderer, http, clock, options);
  d.ClaimAheadWith(ahead_store);
  d.AddHttpChannel("hook", "webhook", webhook);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_TRUE(ahead_store.came()) << "the second batch waited for the first's outcomes";
  EXPECT_EQ(report.claimed, 6u);
  EXPECT_EQ(report.sent, 6u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(fake.Row(Row("acme:k" + std::to_string(i), "hook").idempotency_key).status,
              OutboxStatus::kSent);
  }
}

TEST(DispatcherRoundTest, WritesOutcomesOnTheirOwnConnectionBesideTheClaimAheadWhenAsked) {
  FakeOutboxStore fake;
  std::mutex mutex;
  RoundEvents events;
  SharedOutboxStore main_store(fake, mutex);
  ClaimNotingStore ahead_store(fake, mutex, events);
  // The outcomes connection: its first transaction lasts until a second claim ahead is done,
  // which a claim ahead waiting for the outcomes would never do.
  WaitingRecordStore record_store(fake, mutex, events, &RoundEvents::ahead_claims, 2,
                                  /*note_claims=*/false);
  for (int i = 0; i < 9; ++i) fake.Add(Row("acme:k" + std::to_string(i), "hook"));
  FakeRenderer renderer;
  FakeHttpBatchClient http;
  FakeClock clock{kT0};
  FakeHttpChannel webhook{"https://hooks.test/w"};
  app::DispatcherOptions options = RoundOptions(/*claim_batch=*/3, 16);
  options.writers_take_turns = false;
  app::Dispatcher d(main_store, renderer, http, clock, options);
  d.ClaimAheadWith(ahead_store);
  d.RecordWith(record_store);
  d.AddHttpChannel("hook", "webhook", webhook);
  const app::DispatchReport report = d.RunOnce();
  EXPECT_TRUE(record_store.came()) << "the claim ahead waited for the outcomes";
  EXPECT_GE(record_store.records(), 3) << "outcomes went through another connection";
  EXPECT_EQ(report.claimed, 9u);
  EXPECT_EQ(report.sent, 9u);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(fake.Row(Row("acme:k" + std::to_string(i), "hook").idempotency_key).status,
              OutboxStatus::kSent);
  }
}

TEST(DispatcherRoundTest, RetriesARowOfAnEarlierBatchLaterWithItsOwnKey) {
  FakeOutboxStore fake;
  std::mutex mutex;
  SharedOutboxStore main_store(fake, mutex);
  SharedOutboxStore ahead_store(fake, mutex);
  std::vector<core::OutboxRow> rows;
  for (int i = 0; i < 6; ++i) rows.push_back(Row("acme:k" + std::to_string(i), "hook"));
  for (const core::OutboxRow& row : rows) fake.Add(row);
  FakeRenderer renderer;
  FakeHttpBatchClient http;
  http.Respond(503, {{"Retry-After", "30"}}).Respond(200);
  FakeClock clock{kT0};
  FakeHttpChannel webhook{"https://hooks.test/w"};
  app::Dispatcher d(main_store, renderer, http, clock, RoundOptions(/*claim_batch=*/3, 16));
  d.ClaimAheadWith(ahead_store);
  d.AddHttpChannel("hook", "webhook", webhook);
  const app::DispatchReport first = d.RunOnce();
  EXPECT_EQ(first.claimed, 6u);
  EXPECT_EQ(first.sent, 5u);
  EXPECT_EQ(first.retried, 1u);
  const core::OutboxRow& retried = fake.Row(rows[0].idempotency_key);
  EXPECT_EQ(retried.status, OutboxStatus::kPending);
  EXPECT_EQ(retried.attempts, 0u);  // a provider's throttle uses up no attempt
  EXPECT_EQ(retried.next_attempt_at, kT0 + seconds(30));
  EXPECT_EQ(d.RunOnce().claimed, 0u);  // not due yet
  clock.SleepFor(seconds(30));
  const app::DispatchReport second = d.RunOnce();
  EXPECT_EQ(second.sent, 1u);
  ASSERT_EQ(http.requests().size(), 7u);
  EXPECT_EQ(core::FindHeader(http.requests()[6].headers, "Idempotency-Key"),
            rows[0].idempotency_key);
  EXPECT_EQ(fake.Row(rows[0].idempotency_key).status, OutboxStatus::kSent);
  EXPECT_EQ(fake.Row(rows[0].idempotency_key).attempts, 1u);
}
}  // namespace
}  // namespace quell::testing
