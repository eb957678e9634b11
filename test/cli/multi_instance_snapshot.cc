#include "multi_instance_snapshot.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace quell::testing {

void Snapshot(const PgSchema& db, Outcome& out) {
  std::map<std::string, std::pair<long long, std::string>> current;  // key -> (generation, status)
  for (const auto& r : db.Query("SELECT key, generation, status, event_count, renotify_count "
                                "FROM incidents ORDER BY key")) {
    current[r[0]] = {std::stoll(r[1]), r[2]};
    // Not event_count: a failure that goes on unchanged is recorded once per refresh interval
    // of wall time (docs/store.md, "Quiet sightings"), so how many sightings are recorded
    // depends on when the polls land, which the chaos moves; the transitions do not.
    out.incidents[r[0]] = "generation=" + r[1] + " status=" + r[2] + " renotifies=" + r[4];
  }
  std::map<std::string, std::map<std::string, long long>> kinds;
  std::map<std::string, std::pair<long long, long long>> span;  // last failing at, resolve at
  for (const auto& r : db.Query("SELECT key, generation, decision, reason, count(*), max(at) "
                                "FROM decisions GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4")) {
    const std::string id = r[0] + "#" + r[1];
    const bool open_now = current[r[0]].first == std::stoll(r[1]) && current[r[0]].second == "open";
    std::string kind = r[2];
    if (r[2] == "notify" || r[2] == "resolve") kind += "/" + r[3];
    if (r[2] == "ignore") continue;  // healthy sightings after a resolve: as many as polls ran
    // update_only by kind alone, as event_count above: quiet sightings are not all recorded.
    kinds[id][kind] += open_now || r[2] == "update_only" ? 0 : std::stoll(r[4]);
    if (r[2] == "notify" || r[2] == "update_only") {
      span[id].first = std::max(span[id].first, std::stoll(r[5]));
    }
    if (r[2] == "resolve") span[id].second = std::stoll(r[5]);
  }
  for (const auto& [id, counts] : kinds) {
    std::string text;
    for (const auto& [kind, n] : counts)
      text += kind + (n > 0 ? "=" + std::to_string(n) : "") + " ";
    out.decisions[id] = text;
  }
  for (const auto& [id, s] : span) {
    if (s.second > 0) out.healthy_runs[id] = static_cast<double>(s.second - s.first) / 1e6;
  }
  for (const auto& r : db.Query("SELECT key, generation, transition, status, idempotency_key "
                                "FROM outbox ORDER BY key, generation, version")) {
    out.transitions[r[0] + "#" + r[1] + "#" + r[2]] += 1;
    if (r[3] != "sent") out.unsent.push_back(r[4] + " " + r[0] + " " + r[2] + " " + r[3]);
  }
  out.lost_polls =
      static_cast<int>(out.polls.size()) - static_cast<int>(db.Count("SELECT count(*) FROM polls"));
}

}  // namespace quell::testing
