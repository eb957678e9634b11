#include "quell/core/delivery/group_members.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace quell::core {
namespace {

WallTime At(const char* text) { return *ParseRfc3339(text); }

OutboxRow Member(std::string key, uint64_t generation, uint64_t version, const char* at) {
  OutboxRow row;
  row.key = std::move(key);
  row.generation = generation;
  row.version = version;
  row.channel = "ops";
  row.idempotency_key = OutboxIdempotencyKey(row.key, generation, version, row.channel);
  row.created_at = At(at);
  return row;
}

std::vector<std::string> Order(const std::vector<OutboxRow>& rows) {
  std::vector<std::string> out;
  for (const OutboxRow& row : rows) {
    out.push_back(row.key + "/" + std::to_string(row.generation) + "." +
                  std::to_string(row.version));
  }
  return out;
}

// Commit time first; at one time, keys byte by byte (upper case before lower, UTF-8 after
// ASCII), whatever order a database or a locale would give; one key's rows by version.
TEST(GroupMembersTest, WaitingMembersSortByCommitTimeThenKeyBytesThenVersion) {
  std::vector<OutboxRow> rows = {
      Member("\xC3\xA9t", 1, 1, "2026-12-02T09:00:00Z"),  // "ét"
      Member("b", 2, 3, "2026-12-02T09:00:00Z"),         Member("b", 2, 1, "2026-12-02T09:00:00Z"),
      Member("B", 1, 1, "2026-12-02T09:00:00Z"),         Member("a", 1, 1, "2026-12-02T09:00:01Z"),
      Member("z", 1, 1, "2026-12-02T08:59:59Z"),
  };
  SortWaitingMembers(rows);
  EXPECT_EQ(Order(rows), (std::vector<std::string>{"z/1.1", "B/1.1", "b/2.1", "b/2.3",
                                                   "\xC3\xA9t/1.1", "a/1.1"}));
  // Any input order gives the same list.
  std::vector<OutboxRow> reversed(rows.rbegin(), rows.rend());
  SortWaitingMembers(reversed);
  EXPECT_EQ(Order(reversed), Order(rows));
}

TEST(GroupMembersTest, AnOpenMemberUnderAnActiveSilenceCountsAsSilenced) {
  const WallTime now = At("2026-12-02T09:00:00Z");
  Silence prefix;
  prefix.pattern = "s*";
  prefix.expires_at = now + std::chrono::hours(1);
  Silence exact;
  exact.pattern = "a*";  // exact: only the key "a*" itself
  exact.match = SilenceMatch::kExact;
  exact.expires_at = now + std::chrono::hours(1);
  Silence expired;
  expired.pattern = "a1";
  expired.expires_at = now;  // ended just now
  const std::vector<std::string> open = {"a1", "a2", "s1", "s2", "s3"};
  const std::vector<Silence> silences = {prefix, exact, expired};
  const GroupStanding standing = StandingOf(open, silences, now);
  EXPECT_EQ(standing.open, 2u);
  EXPECT_EQ(standing.silenced, 3u);
  // An hour on, every silence has ended.
  const GroupStanding later = StandingOf(open, silences, now + std::chrono::hours(1));
  EXPECT_EQ(later.open, 5u);
  EXPECT_EQ(later.silenced, 0u);
  EXPECT_EQ(StandingOf({}, silences, now).open, 0u);
}

}  // namespace
}  // namespace quell::core
