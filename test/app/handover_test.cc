#include "quell/app/handover.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

namespace quell::app {
namespace {

TEST(HandoverTest, TheConsumerTakesTheLatestOfferOnce) {
  Handover<int> handover;
  EXPECT_EQ(handover.Take(), nullptr);
  handover.Offer(std::make_unique<int>(1));
  handover.Offer(std::make_unique<int>(2));
  const std::unique_ptr<int> taken = handover.Take();
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(*taken, 2);
  EXPECT_EQ(handover.Take(), nullptr);
}

TEST(HandoverTest, TheProducerWaitsUntilTheOfferIsTaken) {
  Handover<int> handover;
  handover.Offer(std::make_unique<int>(7));
  std::unique_ptr<int> taken;
  std::thread consumer([&] { taken = handover.Take(); });
  EXPECT_TRUE(handover.AwaitTaken());
  consumer.join();
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(*taken, 7);
}

TEST(HandoverTest, AClosedConsumerReleasesTheProducerAndDropsTheOffer) {
  Handover<int> handover;
  handover.Offer(std::make_unique<int>(7));
  std::thread consumer([&] { handover.Close(); });
  EXPECT_FALSE(handover.AwaitTaken());
  consumer.join();
  EXPECT_EQ(handover.Take(), nullptr);
}

}  // namespace
}  // namespace quell::app
