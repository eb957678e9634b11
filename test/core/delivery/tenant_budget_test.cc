#include "quell/core/delivery/tenant_budget.h"

#include <gtest/gtest.h>

namespace quell::core {
namespace {

WallTime At(const char* text) { return *ParseRfc3339(text); }

TEST(TenantBudgetTest, TheTenantIsTheKeyUpToItsFirstColon) {
  EXPECT_EQ(TenantOf("acme:model-answer:grp_1"), "acme");
  EXPECT_EQ(TenantOf("solo"), "solo");
  EXPECT_EQ(TenantOf(":x"), "");
}

TEST(TenantBudgetTest, WindowsAreFixedUtcHours) {
  const BudgetWindow w = HourWindow(At("2026-12-02T09:59:59.999Z"));
  EXPECT_EQ(w.start, At("2026-12-02T09:00:00Z"));
  EXPECT_EQ(w.end, At("2026-12-02T10:00:00Z"));
  EXPECT_EQ(HourWindow(At("2026-12-02T10:00:00Z")).start, w.end);
}

TEST(TenantBudgetTest, DigestRowsAreTheSameForEveryWriterAndDueAtTheWindowEnd) {
  const BudgetWindow w = HourWindow(At("2026-12-02T09:30:00Z"));
  const OutboxRow a = MakeDigestRow("acme", "ops", w, At("2026-12-02T09:30:00Z"));
  const OutboxRow b = MakeDigestRow("acme", "ops", w, At("2026-12-02T09:45:00Z"));
  EXPECT_EQ(a.idempotency_key, b.idempotency_key);
  EXPECT_EQ(a.next_attempt_at, w.end);
  EXPECT_TRUE(IsDigestKey(a.key));
  EXPECT_EQ(a.payload, R"({"digest":{"tenant":"acme","window_start":"2026-12-02T09:00:00Z",)"
                       R"("window_end":"2026-12-02T10:00:00Z"}})");
  EXPECT_NE(MakeDigestRow("acme", "ops", HourWindow(w.end), w.end).idempotency_key,
            a.idempotency_key);
  EXPECT_NE(MakeDigestRow("acme", "pager", w, w.start).idempotency_key, a.idempotency_key);
  EXPECT_NE(MakeDigestRow("beta", "ops", w, w.start).idempotency_key, a.idempotency_key);
}

TEST(TenantBudgetTest, NoRenderedConditionKeyLooksLikeADigest) {
  EXPECT_FALSE(IsDigestKey("digest:acme"));
  EXPECT_TRUE(IsDigestKey("{digest}:acme"));
}

}  // namespace
}  // namespace quell::core
