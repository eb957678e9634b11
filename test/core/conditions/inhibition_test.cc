#include "quell/core/conditions/inhibition.h"

#include <gtest/gtest.h>

namespace quell::core {
namespace {

Incident Open(std::string key, std::string condition, Labels labels) {
  Incident incident;
  incident.key = std::move(key);
  incident.condition = std::move(condition);
  incident.labels = std::move(labels);
  incident.status = IncidentStatus::kOpen;
  incident.generation = 1;
  return incident;
}

const Inhibition kByProviderPerTenant{"provider-down", {"tenant"}};

TEST(InhibitionTest, OpenInhibitorWithTheSameTenantHolds) {
  const Incident provider = Open("acme:provider", "provider-down", {{"tenant", "acme"}});
  EXPECT_TRUE(Inhibits(kByProviderPerTenant, provider, {{"stage", "answer"}, {"tenant", "acme"}}));
}

TEST(InhibitionTest, AnotherTenantIsNotHeld) {
  const Incident provider = Open("acme:provider", "provider-down", {{"tenant", "acme"}});
  EXPECT_FALSE(Inhibits(kByProviderPerTenant, provider, {{"tenant", "globex"}}));
}

TEST(InhibitionTest, ALabelMissingOnBothSidesIsUnequal) {
  const Incident provider = Open("provider", "provider-down", {});
  EXPECT_FALSE(Inhibits(kByProviderPerTenant, provider, {}));
  EXPECT_FALSE(Inhibits(kByProviderPerTenant, provider, {{"tenant", "acme"}}));
}

TEST(InhibitionTest, EveryEqualLabelMustAgree) {
  const Inhibition rule{"provider-down", {"region", "tenant"}};
  const Incident provider =
      Open("acme:provider", "provider-down", {{"region", "eu"}, {"tenant", "acme"}});
  EXPECT_TRUE(Inhibits(rule, provider, {{"region", "eu"}, {"tenant", "acme"}}));
  EXPECT_FALSE(Inhibits(rule, provider, {{"region", "us"}, {"tenant", "acme"}}));
  EXPECT_FALSE(Inhibits(rule, provider, {{"tenant", "acme"}}));
}

TEST(InhibitionTest, NoEqualLabelsMeansAnyOpenIncidentHolds) {
  const Inhibition rule{"provider-down", {}};
  EXPECT_TRUE(Inhibits(rule, Open("provider", "provider-down", {}), {{"tenant", "acme"}}));
}

TEST(InhibitionTest, OnlyAnOpenIncidentOfTheNamedConditionHolds) {
  Incident resolved = Open("acme:provider", "provider-down", {{"tenant", "acme"}});
  resolved.status = IncidentStatus::kResolved;
  EXPECT_FALSE(Inhibits(kByProviderPerTenant, resolved, {{"tenant", "acme"}}));
  const Incident other = Open("acme:db", "db-down", {{"tenant", "acme"}});
  EXPECT_FALSE(Inhibits(kByProviderPerTenant, other, {{"tenant", "acme"}}));
}

TEST(InhibitionTest, HoldingInhibitorNamesTheFirstThatHolds) {
  const std::vector<Incident> open = {
      Open("globex:provider", "provider-down", {{"tenant", "globex"}}),
      Open("acme:provider", "provider-down", {{"tenant", "acme"}}),
  };
  const std::vector<Inhibition> rules = {kByProviderPerTenant};
  const Incident held = Open("acme:answer", "answer-errors", {{"tenant", "acme"}});
  const Incident* holder = HoldingInhibitor(rules, open, held);
  ASSERT_NE(holder, nullptr);
  EXPECT_EQ(holder->key, "acme:provider");
  const Incident free = Open("initech:answer", "answer-errors", {{"tenant", "initech"}});
  EXPECT_EQ(HoldingInhibitor(rules, open, free), nullptr);
  EXPECT_EQ(HoldingInhibitor({}, open, held), nullptr);
}

TEST(InhibitionTest, FindsCyclesOfAnyLength) {
  std::map<std::string, std::vector<Inhibition>, std::less<>> graph;
  graph["answer"] = {{"provider", {}}};
  graph["provider"] = {};
  EXPECT_TRUE(FindInhibitionCycle(graph).empty());

  graph["provider"] = {{"answer", {}}};
  EXPECT_EQ(FindInhibitionCycle(graph), (std::vector<std::string>{"answer", "provider", "answer"}));

  graph["provider"] = {{"network", {}}};
  graph["network"] = {{"answer", {"tenant"}}};
  EXPECT_EQ(FindInhibitionCycle(graph),
            (std::vector<std::string>{"answer", "provider", "network", "answer"}));

  graph.clear();
  graph["self"] = {{"self", {}}};
  EXPECT_EQ(FindInhibitionCycle(graph), (std::vector<std::string>{"self", "self"}));
}

TEST(InhibitionTest, ADiamondIsNoCycle) {
  std::map<std::string, std::vector<Inhibition>, std::less<>> graph;
  graph["a"] = {{"b", {}}, {"c", {}}};
  graph["b"] = {{"d", {}}};
  graph["c"] = {{"d", {}}};
  EXPECT_TRUE(FindInhibitionCycle(graph).empty());
}

}  // namespace
}  // namespace quell::core
