#include "quell/app/dispatch_loop.h"

#include <gtest/gtest.h>

#include <deque>

#include "fake_clock.h"

namespace quell::app {
namespace dispatch_loop_test {

using std::chrono::milliseconds;
using std::chrono::seconds;

const core::WallTime kStart{seconds(1'764'666'000)};

struct Said {
  std::string line;
  bool summary;
};

class DispatchLoopTest : public ::testing::Test {
 protected:
  // Runs the loop over `reports`, one per round; the last round asks it to stop.
  bool Run(std::deque<DispatchReport> reports, bool once) {
    auto round = [&] {
      DispatchReport report = std::move(reports.front());
      reports.pop_front();
      if (reports.empty()) control_.RequestStop();
      return report;
    };
    return RunDispatchRounds(round, milliseconds(50), clock_, control_, once,
                             [this](const std::string& line, bool summary) {
                               said_.push_back({line, summary});
                             });
  }

  testing::FakeClock clock_{kStart};
  RunControl control_;
  std::vector<Said> said_;
};

TEST_F(DispatchLoopTest, OnceRunsRoundsWhileMoreIsDueThenReturns) {
  DispatchReport full;
  full.claimed = 2;
  full.sent = 2;
  full.next_due = kStart;  // a full batch: more is due now
  DispatchReport last;
  last.claimed = 1;
  last.sent = 1;
  DispatchReport never;  // not reached
  EXPECT_FALSE(Run({full, last, never}, /*once=*/true));
  ASSERT_EQ(said_.size(), 2U);
  EXPECT_EQ(said_[0].line, "dispatch: 2 claimed, 2 sent, 0 retried, 0 dead");
  EXPECT_TRUE(said_[0].summary);
  EXPECT_TRUE(clock_.sleeps().empty());
}

// A store that stops answering is said once when it starts and once when it ends, and the
// rounds between back off from 100 ms instead of running at the idle interval.
TEST_F(DispatchLoopTest, AStoreOutageIsSaidAtItsStartAndEndAndBacksOff) {
  DispatchReport down;
  down.store_error = "claim: database is locked";
  down.errors = {down.store_error};
  const DispatchReport up;
  EXPECT_TRUE(Run({down, down, up, up}, /*once=*/false));
  ASSERT_EQ(said_.size(), 2U);
  EXPECT_EQ(said_[0].line, "claim: database is locked");
  EXPECT_FALSE(said_[0].summary);
  EXPECT_EQ(said_[1].line, "the store answers again (after 2 failed rounds)");
  EXPECT_EQ(clock_.sleeps(),
            (std::vector<core::Duration>{milliseconds(100), milliseconds(200), milliseconds(50)}));
}

}  // namespace dispatch_loop_test
}  // namespace quell::app
