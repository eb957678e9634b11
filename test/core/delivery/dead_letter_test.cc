#include "quell/core/delivery/dead_letter.h"

#include <gtest/gtest.h>

#include <chrono>

namespace quell::core {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

constexpr WallTime kAt{seconds(1796202130)};  // 2026-12-02T09:02:10Z

TEST(DeadLetterTest, TheNoticeRowIsDueAtItsWindowsEndWithOneKeyPerChannelAndWindow) {
  const BudgetWindow window = DeadLetterWindowAt(kAt, minutes(5));
  EXPECT_EQ(window.start, WallTime{seconds(1796202000)});  // 09:00, the window's floor
  const OutboxRow row = MakeDeadLetterRow("ops", window, kAt);
  EXPECT_TRUE(IsDeadLetterKey(row.key));
  EXPECT_EQ(row.channel, "ops");
  EXPECT_EQ(row.status, OutboxStatus::kPending);
  EXPECT_EQ(row.next_attempt_at, window.end);
  EXPECT_EQ(row.payload, R"({"dead_letter":{"channel":"ops","window_start":"2026-12-02T09:00:00Z",)"
                         R"("window_end":"2026-12-02T09:05:00Z"}})");
  // Every writer builds the same row for the same window; another window or channel differs.
  EXPECT_EQ(MakeDeadLetterRow("ops", window, kAt + seconds(1)).idempotency_key,
            row.idempotency_key);
  EXPECT_NE(MakeDeadLetterRow("pager", window, kAt).idempotency_key, row.idempotency_key);
  EXPECT_NE(MakeDeadLetterRow("ops", DeadLetterWindowAt(kAt + minutes(5), minutes(5)), kAt)
                .idempotency_key,
            row.idempotency_key);
  EXPECT_EQ(DeadLetterWindowOf(row).start, window.start);
  EXPECT_EQ(DeadLetterWindowOf(row).end, window.end);
}

}  // namespace
}  // namespace quell::core
