#include "quell/core/conditions/inhibition.h"

#include <algorithm>
#include <functional>

namespace quell::core {

bool Inhibits(const Inhibition& rule, const Incident& inhibitor, const Labels& labels) {
  if (inhibitor.status != IncidentStatus::kOpen || inhibitor.condition != rule.condition) {
    return false;
  }
  return std::all_of(rule.equal.begin(), rule.equal.end(), [&](const std::string& name) {
    const auto mine = FindLabel(labels, name);
    const auto theirs = FindLabel(inhibitor.labels, name);
    return mine && theirs && *mine == *theirs;
  });
}

const Incident* HoldingInhibitor(std::span<const Inhibition> rules,
                                 std::span<const Incident> open_inhibitors,
                                 const Incident& incident) {
  for (const Incident& inhibitor : open_inhibitors) {
    if (inhibitor.key == incident.key) continue;
    for (const Inhibition& rule : rules) {
      if (Inhibits(rule, inhibitor, incident.labels)) return &inhibitor;
    }
  }
  return nullptr;
}

std::vector<std::string> FindInhibitionCycle(
    const std::map<std::string, std::vector<Inhibition>, std::less<>>& graph) {
  // Depth-first from each condition in name order; `path` is the current chain of "inhibited
  // by" steps, `done` the conditions already known to reach no cycle.
  enum class Mark { kNone, kOnPath, kDone };
  std::map<std::string, Mark, std::less<>> marks;
  std::vector<std::string> path;
  std::vector<std::string> cycle;
  std::function<bool(const std::string&)> visit = [&](const std::string& name) {
    Mark& mark = marks[name];
    if (mark == Mark::kDone) return false;
    if (mark == Mark::kOnPath) {
      const auto start = std::find(path.begin(), path.end(), name);
      cycle.assign(start, path.end());
      cycle.push_back(name);
      return true;
    }
    mark = Mark::kOnPath;
    path.push_back(name);
    if (const auto it = graph.find(name); it != graph.end()) {
      for (const Inhibition& rule : it->second) {
        if (visit(rule.condition)) return true;
      }
    }
    path.pop_back();
    marks[name] = Mark::kDone;
    return false;
  };
  for (const auto& entry : graph) {
    if (visit(entry.first)) return cycle;
  }
  return {};
}

}  // namespace quell::core
