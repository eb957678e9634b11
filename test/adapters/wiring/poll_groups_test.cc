// The daemon's poll side split by condition interval (wiring::PollGroupsOf), on configs built
// in memory: one group per interval, shortest first, each holding only its own conditions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "quell/adapters/wiring/daemon_assembly.h"

namespace quell::wiring {
namespace poll_groups_test {

using std::chrono::minutes;
using std::chrono::seconds;

std::vector<std::string> Names(const config::Config& config) {
  std::vector<std::string> names;
  for (const auto& c : config.error_conditions) names.push_back(c.common.name);
  for (const auto& m : config.metric_conditions) names.push_back(m.condition.common.name);
  for (const auto& p : config.push_conditions) names.push_back(p.common.name);
  return names;
}

TEST(PollGroupsTest, OneGroupPerIntervalShortestFirstEachWithOnlyItsConditions) {
  config::Config config;
  config.error_conditions.resize(2);
  config.error_conditions[0].common.name = "checkout";
  config.error_conditions[0].common.interval = minutes(5);
  config.error_conditions[1].common.name = "search";
  config.error_conditions[1].common.interval = seconds(30);
  config.metric_conditions.resize(1);
  config.metric_conditions[0].condition.common.name = "latency";
  config.metric_conditions[0].condition.common.interval = minutes(5);
  config.push_conditions.resize(1);
  config.push_conditions[0].common.name = "alertmanager";
  config.push_conditions[0].common.interval = seconds(30);
  config.channels.resize(1);

  const std::vector<PollGroupConfig> groups = PollGroupsOf(config);
  ASSERT_EQ(groups.size(), 2U);
  EXPECT_EQ(groups[0].interval, seconds(30));
  EXPECT_EQ(Names(groups[0].config), (std::vector<std::string>{"search", "alertmanager"}));
  EXPECT_EQ(groups[1].interval, minutes(5));
  EXPECT_EQ(Names(groups[1].config), (std::vector<std::string>{"checkout", "latency"}));
  // What is not a condition is the whole config's in every group.
  EXPECT_EQ(groups[0].config.channels.size(), 1U);
  EXPECT_EQ(groups[1].config.channels.size(), 1U);
}

TEST(PollGroupsTest, AConfigWithoutConditionsHasNoGroup) {
  EXPECT_TRUE(PollGroupsOf(config::Config{}).empty());
}

}  // namespace poll_groups_test
}  // namespace quell::wiring
