#include "quell/app/incident_timeline.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace quell::app {
namespace {

template <typename T>
void KeepNewest(std::vector<T>& items, size_t limit) {
  if (items.size() > limit) {
    items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(items.size() - limit));
  }
}

}  // namespace

const char* HealthOfDecision(const std::string& decision, const std::string& reason) {
  if (decision == "notify" || decision == "update_only") return "unhealthy";
  if (decision == "resolve" && reason == "manual") return "none";
  // A pushed key resolved for want of pushes (reason expired): nobody saw it healthy.
  if (decision == "resolve" && reason == "expired") return "unknown";
  if (decision == "wait_for_health" || decision == "resolve" || decision == "ignore") {
    return "healthy";
  }
  return "unknown";  // unknown and stale are never logged; a mark carries its own health
}

IncidentTimeline BuildTimeline(const core::Incident& incident, core::StoredTimeline stored,
                               size_t limit) {
  IncidentTimeline out;
  out.key = incident.key;

  std::vector<TimelineObservation> decisions;
  decisions.reserve(stored.decisions.size());
  for (core::LoggedDecision& d : stored.decisions) {
    decisions.push_back(TimelineObservation{d.at, std::move(d.poll_id), d.generation,
                                            HealthOfDecision(d.decision, d.reason),
                                            std::move(d.decision), std::move(d.reason), d.version});
  }
  // The log is by version, which is time order for one key; marks are by time.
  std::stable_sort(decisions.begin(), decisions.end(),
                   [](const auto& a, const auto& b) { return a.at < b.at; });
  std::vector<TimelineObservation> marks;
  marks.reserve(stored.marks.size());
  for (core::LoggedMark& m : stored.marks) {
    marks.push_back(TimelineObservation{m.at, std::move(m.poll_id), m.generation,
                                        std::move(m.health), std::move(m.decision), "",
                                        std::nullopt});
  }
  out.observations.reserve(decisions.size() + marks.size());
  // std::merge takes from the first range on a tie.
  std::merge(std::make_move_iterator(decisions.begin()), std::make_move_iterator(decisions.end()),
             std::make_move_iterator(marks.begin()), std::make_move_iterator(marks.end()),
             std::back_inserter(out.observations),
             [](const auto& a, const auto& b) { return a.at < b.at; });
  KeepNewest(out.observations, limit);

  out.attempts = std::move(stored.attempts);
  KeepNewest(out.attempts, limit);

  out.generations = std::move(stored.generations);
  if (incident.generation > 0) {
    auto current = std::find_if(
        out.generations.begin(), out.generations.end(),
        [&](const core::GenerationSpan& g) { return g.generation == incident.generation; });
    if (current == out.generations.end()) {
      out.generations.push_back(
          core::GenerationSpan{incident.generation, std::nullopt, std::nullopt});
      current = std::prev(out.generations.end());
    }
    if (!current->opened_at) current->opened_at = incident.opened_at;
    current->acked_at = incident.acked_at;
    current->acked_by = incident.acked_at ? incident.acked_by : std::string();
    if (!current->resolved_at && incident.status == core::IncidentStatus::kResolved) {
      current->resolved_at = incident.resolved_at;
    }
    std::sort(out.generations.begin(), out.generations.end(),
              [](const auto& a, const auto& b) { return a.generation < b.generation; });
  }
  KeepNewest(out.generations, limit);
  return out;
}

}  // namespace quell::app
