#include "quell/core/conditions/listing_observer.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

namespace quell::core {
namespace listing_observer_test {

WallTime At(const char* text) { return ParseRfc3339(text).value(); }

ErrorGroup Group(std::string id, std::string service, bool resolved, uint64_t count = 1) {
  ErrorGroup g;
  g.id = std::move(id);
  g.resolved = resolved;
  g.count = count;
  g.last_seen = At("2026-12-02T09:00:00Z");
  g.tags = {{"service", std::move(service)}};
  return g;
}

ErrorGroupCondition ByService() {
  ErrorGroupCondition c;
  c.common.name = "errors";
  c.key = KeyTemplate::Parse("{tags.service}").value();
  return c;
}

std::vector<std::string> Keys(const ObservedChunk& chunk) {
  std::vector<std::string> keys;
  for (const Observation& o : chunk.observations) keys.push_back(o.key);
  return keys;
}

TEST(KeyHashSetTest, HoldsEveryBatchInserted) {
  KeyHashSet set;
  for (int batch = 0; batch < 50; ++batch) {
    std::vector<uint64_t> hashes;
    for (int i = 0; i < 37; ++i) hashes.push_back(KeyHashSet::Hash(std::to_string(batch * 37 + i)));
    set.Insert(hashes);
  }
  EXPECT_EQ(set.size(), 50U * 37U);
  for (int i = 0; i < 50 * 37; ++i) EXPECT_TRUE(set.Contains(std::to_string(i))) << i;
  EXPECT_FALSE(set.Contains(std::string("1850")));
  // Growing keeps what was in it; a hash of 0 (the empty slot's mark) is held too.
  set.Insert(std::vector<uint64_t>{0, 0, KeyHashSet::Hash("0")});
  EXPECT_TRUE(set.Contains(uint64_t{0}));
  EXPECT_EQ(set.size(), 50U * 37U + 1U);
  for (int i = 0; i < 50 * 37; ++i) EXPECT_TRUE(set.Contains(std::to_string(i))) << i;
}

// Within a chunk groups sharing a key merge; a later chunk's failing group of the same key adds
// nothing, and a healthy group never observes before the walk ends.
TEST(ListingObserverTest, ObservesEachFailingKeyInTheFirstChunkThatShowsIt) {
  const ErrorGroupCondition condition = ByService();
  ListingObserver observer(condition, std::nullopt, At("2026-12-02T09:01:00Z"), {});
  observer.ObservePage(
      std::vector<ErrorGroup>{Group("g1", "api", false, 2), Group("g2", "api", false, 3),
                              Group("g3", "web", true)},
      {}, {});
  const ObservedChunk first = observer.TakeChunk();
  EXPECT_EQ(Keys(first), std::vector<std::string>{"api"});
  EXPECT_EQ(first.observations[0].upstream_count, std::optional<uint64_t>(5));
  EXPECT_EQ(first.group_ids, std::vector<std::string>{"g1"});
  EXPECT_EQ(first.key_groups.size(), 2U);

  observer.ObservePage(std::vector<ErrorGroup>{Group("g4", "api", false), Group("g5", "db", false)},
                       {}, {});
  const ObservedChunk second = observer.TakeChunk();
  EXPECT_EQ(Keys(second), std::vector<std::string>{"db"});
  EXPECT_EQ(second.key_groups.size(), 2U);  // (api, g4) is still recorded

  ObservedChunk unseen;
  const std::vector<std::string> watched = {"api", "old", "web"};
  observer.ObserveUnseen(watched, /*complete=*/true, /*last=*/true, unseen);
  EXPECT_EQ(Keys(unseen), (std::vector<std::string>{"old", "web"}));
  EXPECT_EQ(unseen.observations[0].health, Health::kHealthy);
}

TEST(ListingObserverTest, AnIncompleteListingObservesTheUnseenAsUnknown) {
  const ErrorGroupCondition condition = ByService();
  ListingObserver observer(condition, std::nullopt, At("2026-12-02T09:01:00Z"), {});
  observer.ObservePage(std::vector<ErrorGroup>{Group("g3", "web", true)}, {}, {});
  (void)observer.TakeChunk();
  ObservedChunk unseen;
  const std::vector<std::string> watched = {"web"};
  observer.ObserveUnseen(watched, /*complete=*/false, /*last=*/true, unseen);
  ASSERT_EQ(Keys(unseen), std::vector<std::string>{"web"});
  EXPECT_EQ(unseen.observations[0].health, Health::kUnknown);
}

// Flap damping counts healthy polls of keys that are not open: those keys are observed after
// the walk, merged in key order with the watched incidents' slices, each once.
TEST(ListingObserverTest, AFlapDampedConditionObservesItsHealthyKeysAfterTheWalk) {
  ErrorGroupCondition condition = ByService();
  condition.common.policy.flap = FlapDamping{};
  ListingObserver observer(condition, std::nullopt, At("2026-12-02T09:01:00Z"), {});
  observer.ObservePage(std::vector<ErrorGroup>{Group("g1", "c", true), Group("g2", "a", true),
                                               Group("g3", "b", false), Group("g4", "e", true)},
                       {}, {});
  observer.ObservePage(std::vector<ErrorGroup>{Group("g5", "a", false)}, {}, {});
  (void)observer.TakeChunk();
  ObservedChunk first;
  const std::vector<std::string> slice1 = {"c"};
  observer.ObserveUnseen(slice1, true, false, first);
  EXPECT_EQ(Keys(first), std::vector<std::string>{"c"});  // "a" failed on page 2
  ObservedChunk second;
  const std::vector<std::string> slice2 = {"d"};
  observer.ObserveUnseen(slice2, true, true, second);
  EXPECT_EQ(Keys(second), (std::vector<std::string>{"d", "e"}));
}

// The poller reads a page's healthy keys' incidents together: it is asked once per page, in
// key order, each key once and never again once remembered, and the kept keys' first listed
// groups come back with their observations after the walk.
TEST(ListingObserverTest, AsksAboutAPagesHealthyKeysTogether) {
  const ErrorGroupCondition condition = ByService();
  ListingObserver observer(condition, std::nullopt, At("2026-12-02T09:01:00Z"), {});
  std::vector<std::vector<std::string>> asked;
  const ListingObserver::Remember remember = [&](std::span<const std::string> keys,
                                                 std::vector<size_t>& kept) {
    asked.emplace_back(keys.begin(), keys.end());
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == "db" || keys[i] == "web") kept.push_back(i);
    }
  };
  observer.ObservePage(std::vector<ErrorGroup>{Group("g1", "web", true), Group("g2", "api", false),
                                               Group("g3", "db", true), Group("g4", "web", true)},
                       {}, remember);
  observer.ObservePage(
      std::vector<ErrorGroup>{Group("g5", "web", true), Group("g6", "cache", true)}, {}, remember);
  EXPECT_EQ(asked, (std::vector<std::vector<std::string>>{{"db", "web"}, {"cache"}}));
  (void)observer.TakeChunk();
  ObservedChunk unseen;
  const std::vector<std::string> watched = {"cache", "db", "web"};
  observer.ObserveUnseen(watched, /*complete=*/true, /*last=*/true, unseen);
  EXPECT_EQ(Keys(unseen), (std::vector<std::string>{"cache", "db", "web"}));
  EXPECT_EQ(unseen.group_ids, (std::vector<std::string>{"", "g3", "g1"}));
}

}  // namespace listing_observer_test
}  // namespace quell::core
