// The dispatcher's second look at claimed escalation rows (OutboxStore::CancelUnwantedTierRows)
// before it sends them: what the store cancelled is not sent, ordinary rows are never asked
// about, and a failed check sends no tier row at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "fake_clock.h"
#include "fake_http_batch_client.h"
#include "fake_outbox_store.h"
#include "quell/app/dispatcher.h"

namespace quell::testing {
namespace {

constexpr core::WallTime kT0{std::chrono::microseconds(1796202000LL * 1000000)};

core::OutboxRow TierRow(const std::string& channel, uint32_t tier) {
  core::OutboxRow row;
  row.idempotency_key = core::OutboxIdempotencyKey("acme:db", 1, 1, channel);
  row.key = "acme:db";
  row.generation = 1;
  row.version = 1;
  row.channel = channel;
  row.payload = "{}";
  row.tier = tier;
  row.next_attempt_at = kT0;
  return row;
}

class KeyRenderer : public core::MessageRenderer {
 public:
  core::Result<core::RenderedMessage> Render(std::string_view,
                                             const core::OutboxRow& row) const override {
    return core::RenderedMessage{row.key, row.key, "error"};
  }
};

class Recorder : public core::Channel {
 public:
  core::SendOutcome Send(const core::Delivery& d) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    channels_.push_back(d.row.channel);
    return core::SendOutcome::Sent("id");
  }
  std::vector<std::string> channels() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return channels_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> channels_;
};

class DispatcherTierCheckTest : public ::testing::Test {
 protected:
  DispatcherTierCheckTest() {
    store_.Add(TierRow("chat", 0));
    store_.Add(TierRow("pager", 2));
  }
  app::DispatchReport Round() {
    app::DispatcherOptions options;
    options.owner = "d1";
    app::Dispatcher dispatcher(store_, renderer_, http_, clock_, options);
    dispatcher.AddChannel("chat", "webhook", recorder_);
    dispatcher.AddChannel("pager", "pagerduty", recorder_);
    return dispatcher.RunOnce();
  }

  FakeOutboxStore store_;
  KeyRenderer renderer_;
  FakeHttpBatchClient http_;
  FakeClock clock_{kT0};
  Recorder recorder_;
};

TEST_F(DispatcherTierCheckTest, ATierTheStoreCancelsAfterTheClaimIsNotSent) {
  store_.CancelTierRows({TierRow("pager", 2).idempotency_key});
  const app::DispatchReport report = Round();
  EXPECT_TRUE(report.errors.empty());
  EXPECT_EQ(recorder_.channels(), (std::vector<std::string>{"chat"}));
  EXPECT_EQ(store_.Row(TierRow("pager", 2).idempotency_key).status, core::OutboxStatus::kCancelled);
}

TEST_F(DispatcherTierCheckTest, ATierStillWantedIsSent) {
  Round();
  auto sent = recorder_.channels();
  std::sort(sent.begin(), sent.end());
  EXPECT_EQ(sent, (std::vector<std::string>{"chat", "pager"}));
}

TEST_F(DispatcherTierCheckTest, AFailedCheckSendsNoTierRowAndSaysSo) {
  store_.FailTierCheck(core::ErrorCode::kUnavailable);
  const app::DispatchReport report = Round();
  EXPECT_EQ(recorder_.channels(), (std::vector<std::string>{"chat"}));
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_NE(report.errors[0].find("escalation check"), std::string::npos);
}

}  // namespace
}  // namespace quell::testing
