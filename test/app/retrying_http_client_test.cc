#include "quell/app/retrying_http_client.h"

#include <gtest/gtest.h>

#include "fake_clock.h"
#include "fake_http_client.h"
#include "quell/app/budgeted_http_client.h"

namespace quell::app {
namespace {

using core::ErrorCode;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Sun, 06 Nov 1994 08:49:37 GMT.
const core::WallTime kStart =
    core::WallTime{std::chrono::sys_days{std::chrono::year{1994} / std::chrono::November / 6}} +
    std::chrono::hours{8} + std::chrono::minutes{49} + seconds{37};
constexpr const char* kUrl = "http://127.0.0.1:4100/v1/errors/groups";

class RetryingHttpClientTest : public ::testing::Test {
 protected:
  core::Result<RetriedResponse> Send() {
    core::HttpRequest request;
    request.url = kUrl;
    request.headers = {{"Authorization", "Bearer ifr_secret"}};
    return retrying_.Send(request, budget_);
  }

  testing::FakeHttpClient http_;
  testing::FakeClock clock_{kStart};
  RetryPolicy policy_;
  RetryBudget budget_{seconds{300}};
  RetryingHttpClient retrying_{http_, clock_, policy_, 1};
};

TEST_F(RetryingHttpClientTest, ReturnsASuccessAtOnce) {
  http_.Respond(200, {}, "ok");
  auto r = Send();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->response.status, 200);
  EXPECT_EQ(r->response.body, "ok");
  EXPECT_EQ(r->attempts, 1u);
  EXPECT_EQ(r->stop, RetryStop::kFinal);
  EXPECT_TRUE(clock_.sleeps().empty());
  ASSERT_EQ(http_.requests().size(), 1u);
  EXPECT_EQ(http_.requests()[0].url, kUrl);
  EXPECT_EQ(core::FindHeader(http_.requests()[0].headers, "authorization"), "Bearer ifr_secret");
}

TEST_F(RetryingHttpClientTest, HonoursRetryAfterSecondsExactly) {
  http_.Respond(429, {{"retry-after", "7"}}).Respond(200);
  auto r = Send();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->response.status, 200);
  EXPECT_EQ(r->attempts, 2u);
  EXPECT_EQ(clock_.sleeps(), std::vector<core::Duration>{seconds{7}});
  EXPECT_EQ(budget_.remaining(), seconds{293});
}

TEST_F(RetryingHttpClientTest, HonoursRetryAfterDateExactly) {
  http_.Respond(429, {{"Retry-After", "Sun, 06 Nov 1994 08:49:49 GMT"}}).Respond(200);
  auto r = Send();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->attempts, 2u);
  EXPECT_EQ(clock_.sleeps(), std::vector<core::Duration>{seconds{12}});
}

TEST_F(RetryingHttpClientTest, RetryAfterZeroRetriesWithoutSleeping) {
  http_.Respond(429, {{"Retry-After", "0"}}).Respond(200);
  auto r = Send();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->attempts, 2u);
  EXPECT_TRUE(clock_.sleeps().empty());
}

// Datadog answers a 429 with X-RateLimit-Reset (seconds until its window resets), not
// Retry-After; a Retry-After, when both come, wins.
TEST_F(RetryingHttpClientTest, WaitsOutXRateLimitResetWithoutARetryAfter) {
  http_.Respond(429, {{"X-RateLimit-Reset", "7"}, {"X-RateLimit-Remaining", "0"}})
      .Respond(429, {{"Retry-After", "2"}, {"X-RateLimit-Reset", "9"}})
      .Respond(200);
  auto r = Send();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->attempts, 3u);
  EXPECT_EQ(clock_.sleeps(), (std::vector<core::Duration>{seconds{7}, seconds{2}}));
}

TEST_F(RetryingHttpClientTest, CapsRetryAfterAtThePolicyMaximum) {
  http_.Respond(429, {{"Retry-After", "3600"}}).Respond(200);
  ASSERT_TRUE(Send().ok());
  EXPECT_EQ(clock_.sleeps(), std::vector<core::Duration>{seconds{60}});
}

TEST_F(RetryingHttpClientTest, FallsBackToBackoffWithoutAValidRetryAfter) {
  http_.Respond(429, {{"Retry-After", "soon"}}).Respond(429).Respond(200);
  auto r = Send();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->attempts, 3u);
  const auto sleeps = clock_.sleeps();
  ASSERT_EQ(sleeps.size(), 2u);
  EXPECT_LE(sleeps[0], milliseconds{200});
  EXPECT_LE(sleeps[1], milliseconds{400});
}

TEST_F(RetryingHttpClientTest, ReturnsTheLast429WhenAStormOutlastsTheAttempts) {
  http_.Respond(429, {{"Retry-After", "1"}}, "slow down");
  auto r = Send();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->response.status, 429);
  EXPECT_EQ(r->response.body, "slow down");
  EXPECT_EQ(r->attempts, policy_.max_attempts);
  EXPECT_EQ(r->stop, RetryStop::kOutOfAttempts);
  EXPECT_EQ(http_.requests().size(), 4u);
  EXPECT_EQ(clock_.sleeps(), std::vector<core::Duration>(3, seconds{1}));
}

TEST_F(RetryingHttpClientTest, StopsEarlyWhenTheNextWaitExceedsTheBudget) {
  RetryBudget budget(seconds{25});
  http_.Respond(429, {{"Retry-After", "10"}});
  core::HttpRequest request;
  request.url = kUrl;
  auto r = retrying_.Send(request, budget);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->response.status, 429);
  EXPECT_EQ(r->attempts, 3u);
  EXPECT_EQ(r->stop, RetryStop::kOutOfBudget);
  EXPECT_EQ(clock_.sleeps(), std::vector<core::Duration>(2, seconds{10}));
  EXPECT_EQ(budget.remaining(), seconds{5});
}

TEST_F(RetryingHttpClientTest, SharesOneBudgetAcrossRequests) {
  RetryBudget budget(milliseconds{1500});
  http_.Respond(429, {{"Retry-After", "1"}}).Respond(200).Respond(429, {{"Retry-After", "1"}});
  core::HttpRequest request;
  request.url = kUrl;
  auto first = retrying_.Send(request, budget);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->response.status, 200);
  EXPECT_EQ(budget.remaining(), milliseconds{500});
  auto second = retrying_.Send(request, budget);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->response.status, 429);
  EXPECT_EQ(second->attempts, 1u);
  EXPECT_EQ(second->stop, RetryStop::kOutOfBudget);
  EXPECT_EQ(clock_.sleeps().size(), 1u);
}

TEST_F(RetryingHttpClientTest, NeverRetriesOtherClientErrors) {
  for (int status : {400, 401, 402, 403, 404, 409, 422, 501}) {
    testing::FakeHttpClient http;
    http.Respond(status);
    RetryingHttpClient retrying(http, clock_, policy_, 1);
    core::HttpRequest request;
    request.url = kUrl;
    auto r = retrying.Send(request, budget_);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->response.status, status);
    EXPECT_EQ(r->attempts, 1u) << status;
    EXPECT_EQ(r->stop, RetryStop::kFinal);
    EXPECT_EQ(http.requests().size(), 1u);
  }
  EXPECT_TRUE(clock_.sleeps().empty());
}

TEST_F(RetryingHttpClientTest, RetriesServerErrorsWithBackoff) {
  for (int status : {500, 502, 503, 504}) {
    testing::FakeHttpClient http;
    http.Respond(status).Respond(status).Respond(200);
    RetryingHttpClient retrying(http, clock_, policy_, 1);
    core::HttpRequest request;
    request.url = kUrl;
    auto r = retrying.Send(request, budget_);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->response.status, 200);
    EXPECT_EQ(r->attempts, 3u) << status;
  }
  for (const core::Duration d : clock_.sleeps()) EXPECT_LE(d, milliseconds{400});
}

TEST_F(RetryingHttpClientTest, RetriesUnavailableAndSaysHowManyAttemptsFailed) {
  http_.Fail(ErrorCode::kUnavailable, std::string("GET ") + kUrl + ": connection refused");
  auto r = Send();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(r.error().message, std::string("GET ") + kUrl + ": connection refused (4 attempts)");
  EXPECT_EQ(http_.requests().size(), 4u);
  EXPECT_EQ(clock_.sleeps().size(), 3u);
}

TEST_F(RetryingHttpClientTest, RecoversFromATimeout) {
  http_.Fail(ErrorCode::kTimeout, "GET x: timed out").Respond(200);
  auto r = Send();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->attempts, 2u);
}

TEST_F(RetryingHttpClientTest, NeverRetriesATlsRejection) {
  http_.Fail(ErrorCode::kRejected, "GET https://x/: SSL certificate problem");
  auto r = Send();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRejected);
  EXPECT_EQ(r.error().message, "GET https://x/: SSL certificate problem");
  EXPECT_EQ(http_.requests().size(), 1u);
  EXPECT_TRUE(clock_.sleeps().empty());
}

TEST_F(RetryingHttpClientTest, SaysWhenTheBudgetEndedTransportRetries) {
  RetryBudget empty(core::Duration::zero());
  http_.Fail(ErrorCode::kUnavailable, "GET x: connection reset");
  core::HttpRequest request;
  auto r = retrying_.Send(request, empty);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "GET x: connection reset (1 attempt; retry budget exhausted)");
}

TEST_F(RetryingHttpClientTest, TheSameSeedGivesTheSameWaits) {
  const auto waits = [this](uint64_t seed) {
    testing::FakeHttpClient http;
    http.Respond(503);
    testing::FakeClock clock(kStart);
    RetryingHttpClient retrying(http, clock, policy_, seed);
    core::HttpRequest request;
    EXPECT_TRUE(retrying.Send(request, budget_).ok());
    return clock.sleeps();
  };
  EXPECT_EQ(waits(5), waits(5));
  EXPECT_NE(waits(5), waits(6));
}

// A server that accepts and never answers: each attempt lasts its whole total_timeout (on the
// fake clock) and fails as curl would.
class HangingHttpClient : public core::HttpClient {
 public:
  explicit HangingHttpClient(testing::FakeClock& clock) : clock_(clock) {}
  core::Result<core::HttpResponse> Send(const core::HttpRequest& request) override {
    timeouts.push_back(request.total_timeout);
    clock_.SleepFor(request.total_timeout);
    clock_.StepWall(wall_step);
    return core::MakeError(ErrorCode::kTimeout, request.url + ": timed out");
  }
  std::vector<core::Duration> timeouts;
  core::Duration wall_step{};  // the wall clock jumps by this during each attempt

 private:
  testing::FakeClock& clock_;
};

TEST(RetryingHttpClientDeadlineTest, AHangingSourceCostsNoMoreThanTheDeadline) {
  testing::FakeClock clock(kStart);
  HangingHttpClient hanging(clock);
  RetryBudget budget(seconds{300});
  RetryingHttpClient retrying(hanging, clock, RetryPolicy{}, 1);
  core::HttpRequest request;
  request.url = kUrl;
  request.total_timeout = seconds{30};
  const core::MonoTime deadline = clock.Monotonic() + seconds{45};
  auto r = retrying.Send(request, budget, deadline);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout);
  EXPECT_NE(r.error().message.find("the poll deadline for this source passed"), std::string::npos)
      << r.error().message;
  // 30 s, a backoff, then what is left of the 45 s: the deadline, not 4 x 30 s.
  ASSERT_EQ(hanging.timeouts.size(), 2U);
  EXPECT_EQ(hanging.timeouts[0], seconds{30});
  EXPECT_LT(hanging.timeouts[1], seconds{15});
  EXPECT_EQ(clock.Now(), kStart + seconds{45});

  // Past the deadline nothing more is sent.
  auto late = retrying.Send(request, budget, deadline);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("not sent"), std::string::npos) << late.error().message;
  EXPECT_EQ(hanging.timeouts.size(), 2U);
}

// The deadline is measured on the monotonic clock: the wall stepping back an hour during each
// attempt (an NTP correction) neither lets the source hang past it nor ends it early.
TEST(RetryingHttpClientDeadlineTest, AWallClockStepMovesNoDeadline) {
  for (const core::Duration step :
       {core::Duration(-std::chrono::hours(1)), core::Duration(std::chrono::hours(1))}) {
    testing::FakeClock clock(kStart);
    HangingHttpClient hanging(clock);
    hanging.wall_step = step;
    RetryBudget budget(seconds{300});
    RetryingHttpClient retrying(hanging, clock, RetryPolicy{}, 1);
    core::HttpRequest request;
    request.url = kUrl;
    request.total_timeout = seconds{30};
    auto r = retrying.Send(request, budget, clock.Monotonic() + seconds{45});
    ASSERT_FALSE(r.ok());
    ASSERT_EQ(hanging.timeouts.size(), 2U) << "wall step " << step.count();
    EXPECT_EQ(hanging.timeouts[0], seconds{30});
    EXPECT_LT(hanging.timeouts[1], seconds{15});
  }
}

// The adapter reading a response it gave up on learns why from the response itself; nothing
// is added to the headers, which are the remote's own.
TEST(BudgetedHttpClientTest, AResponseGivenUpOnCarriesItsRetryNote) {
  testing::FakeClock clock(kStart);
  testing::FakeHttpClient http;
  http.Respond(503);
  RetryingHttpClient retrying(http, clock, RetryPolicy{.max_attempts = 3}, 1);
  BudgetedHttpClient budgeted(retrying, seconds{300});
  core::HttpRequest request;
  request.url = kUrl;
  auto r = budgeted.Send(request);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->retry_note, "still failing after 3 attempts");
  EXPECT_TRUE(r->headers.empty());

  http.Respond(200);
  auto fine = budgeted.Send(request);
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(fine->status, 200);
  EXPECT_EQ(fine->retry_note, "");
}

// Sources are polled one after another: a source's deadline counts from its own first request,
// so one that waited behind a hanging source still gets its whole deadline.
TEST(BudgetedHttpClientTest, ThePollDeadlineCountsFromTheSourcesFirstRequest) {
  testing::FakeClock clock(kStart);
  HangingHttpClient hanging(clock);
  RetryingHttpClient retrying(hanging, clock, RetryPolicy{.max_attempts = 1}, 1);
  BudgetedHttpClient budgeted(retrying, seconds{30});
  budgeted.StartPoll(seconds{10});
  clock.SleepFor(seconds{25});  // another source hung meanwhile
  core::HttpRequest request;
  request.url = kUrl;
  request.total_timeout = seconds{30};
  auto first = budgeted.Send(request);
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.error().message.find("the poll deadline for this source passed"),
            std::string::npos)
      << first.error().message;
  ASSERT_EQ(hanging.timeouts.size(), 1U);
  EXPECT_EQ(hanging.timeouts[0], seconds{10});
  EXPECT_FALSE(budgeted.Send(request).ok());  // the same poll: past its deadline, not sent
  EXPECT_EQ(hanging.timeouts.size(), 1U);
  budgeted.StartPoll(seconds{10});  // the next poll starts afresh
  EXPECT_FALSE(budgeted.Send(request).ok());
  EXPECT_EQ(hanging.timeouts.size(), 2U);
}

// A streamed listing's pages are observed and committed between its requests: the poller
// moves the deadline on by that time, so only the source's own time counts.
TEST(BudgetedHttpClientTest, APostponedDeadlineLeavesTheTimeItWasMovedBy) {
  testing::FakeClock clock(kStart);
  HangingHttpClient hanging(clock);
  RetryingHttpClient retrying(hanging, clock, RetryPolicy{.max_attempts = 1}, 1);
  BudgetedHttpClient budgeted(retrying, seconds{30});
  budgeted.StartPoll(seconds{10});
  core::HttpRequest request;
  request.url = kUrl;
  request.total_timeout = seconds{8};
  EXPECT_FALSE(budgeted.Send(request).ok());  // hangs its 8 s: 2 s of the deadline left
  budgeted.Postpone(seconds{20});
  EXPECT_FALSE(budgeted.Send(request).ok());
  ASSERT_EQ(hanging.timeouts.size(), 2U);
  EXPECT_EQ(hanging.timeouts[1], seconds{8}) << "cut to the 2 s left without the postponement";
}

// The wall clock jumping forward a day between a poll's first request and its retry does not
// end the poll's deadline early.
TEST(BudgetedHttpClientTest, AWallClockStepDoesNotEndThePollDeadline) {
  testing::FakeClock clock(kStart);
  HangingHttpClient hanging(clock);
  hanging.wall_step = std::chrono::hours(24);
  RetryingHttpClient retrying(hanging, clock, RetryPolicy{.max_attempts = 1}, 1);
  BudgetedHttpClient budgeted(retrying, seconds{30});
  budgeted.StartPoll(seconds{100});
  core::HttpRequest request;
  request.url = kUrl;
  request.total_timeout = seconds{30};
  EXPECT_FALSE(budgeted.Send(request).ok());
  EXPECT_FALSE(budgeted.Send(request).ok());  // 30 s of the 100 s used: sent, in full
  ASSERT_EQ(hanging.timeouts.size(), 2U);
  EXPECT_EQ(hanging.timeouts[1], seconds{30});
}

}  // namespace
}  // namespace quell::app
