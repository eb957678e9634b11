#include "quell/adapters/config/inhibition_reader.h"

#include <algorithm>
#include <utility>

namespace quell::config {
namespace {

void FailAt(YamlContext& context, const std::string& where, const std::string& what) {
  std::string message = where + ": " + what;
  if (!context.error) context.error = core::MakeError(core::ErrorCode::kInvalidArgument, message);
  context.errors.push_back(std::move(message));
}

}  // namespace

void ReadInhibitions(MapReader& section, std::vector<core::Inhibition>& out,
                     InhibitionSites& sites) {
  if (!section.Has("inhibited_by")) return;
  std::vector<core::Inhibition> rules;
  InhibitionSites where;
  for (MapReader& item : section.Items("inhibited_by")) {
    core::Inhibition rule;
    item.Read("condition", rule.condition);
    if (rule.condition.empty()) {
      item.Fail("condition", "names the inhibiting condition, e.g. condition: provider-down");
    }
    item.ReadNameList("equal", rule.equal);
    where.push_back(item.Locate("condition"));
    item.Finish();
    rules.push_back(std::move(rule));
  }
  out = std::move(rules);
  sites = std::move(where);
}

void CheckInhibitions(YamlContext& context, const std::map<std::string, InhibitionSites>& sites,
                      const InhibitionSites& default_sites, Config& config) {
  std::vector<core::ConditionCommon*> conditions;
  for (auto& condition : config.error_conditions) conditions.push_back(&condition.common);
  for (auto& entry : config.metric_conditions) conditions.push_back(&entry.condition.common);
  for (auto& condition : config.push_conditions) conditions.push_back(&condition.common);
  for (auto& entry : config.sentry_conditions) conditions.push_back(&entry.condition.common);
  for (auto& entry : config.datadog_conditions) conditions.push_back(&entry.condition.common);
  std::map<std::string, std::vector<core::Inhibition>, std::less<>> graph;
  std::map<std::string, InhibitionSites, std::less<>> graph_sites;  // parallel to graph
  for (const core::ConditionCommon* common : conditions) graph[common->name];
  bool valid = true;
  for (core::ConditionCommon* common : conditions) {
    const auto found = sites.find(common->name);
    const bool inherited = found == sites.end() || found->second == default_sites;
    const InhibitionSites& where = inherited ? default_sites : found->second;
    const auto site = [&](size_t i) { return i < where.size() ? where[i] : context.file; };
    std::vector<core::Inhibition> kept;
    InhibitionSites kept_sites;
    for (size_t i = 0; i < common->inhibited_by.size(); ++i) {
      const core::Inhibition& rule = common->inhibited_by[i];
      if (rule.condition == common->name) {
        if (inherited) continue;
        FailAt(context, site(i),
               "condition \"" + common->name + "\" cannot be inhibited by itself");
        valid = false;
      } else if (!graph.contains(rule.condition)) {
        FailAt(context, site(i),
               "condition \"" + common->name + "\" is inhibited by \"" + rule.condition +
                   "\", which is not a configured condition");
        valid = false;
      }
      kept.push_back(rule);
      kept_sites.push_back(site(i));
    }
    common->inhibited_by = kept;
    graph[common->name] = std::move(kept);
    graph_sites[common->name] = std::move(kept_sites);
  }
  if (!valid) return;
  const std::vector<std::string> cycle = core::FindInhibitionCycle(graph);
  if (cycle.empty()) return;
  std::string chain;
  for (const std::string& name : cycle) chain += (chain.empty() ? "" : " -> ") + name;
  // Pointed at the first step of the cycle: the entry of cycle[0] that names cycle[1].
  const std::vector<core::Inhibition>& first = graph[cycle[0]];
  size_t index = 0;
  while (index < first.size() && first[index].condition != cycle[1]) ++index;
  const InhibitionSites& where = graph_sites[cycle[0]];
  FailAt(context, index < where.size() ? where[index] : context.file,
         "inhibition cycle " + chain +
             ": once all of them are open, each would hold the others' pages forever");
}

}  // namespace quell::config
