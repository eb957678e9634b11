#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "quell/app/poller.h"
#include "quell/app/run_listener.h"
#include "quell/core/text/time.h"

namespace quell::app {

// A source the running config polls, as GET /v1/sources shows it: never a credential.
struct SourceEntry {
  std::string name;      // the poll's source name: "infrai error groups", "prometheus"
  std::string type;      // "infrai", "prometheus"
  std::string base_url;  // without userinfo or query
  std::vector<std::string> conditions;
};

struct ConditionEntry {
  std::string name;
  std::string source;  // a SourceEntry::name
  core::Duration interval{};
  bool shadow = false;
};

// What the running config polls; a reload replaces it (app::Latest).
struct SourceCatalog {
  std::vector<SourceEntry> sources;
  std::vector<ConditionEntry> conditions;
};

// One condition's outcome in this instance's latest cycle that polled it.
struct LastConditionCycle {
  core::WallTime at;
  ConditionOutcome outcome;
};

// Hears each cycle's end and keeps, per condition, the latest outcome: what the sources page
// shows as "last cycle". A standby never cycles, so it keeps none. Thread-safe.
class LastCycles : public RunListener {
 public:
  void OnCycleStart(const std::string& run_id, core::WallTime at) override;
  void OnCycleEnd(const std::string& run_id, const CycleReport& report, core::WallTime at) override;
  void OnDispatch(const DispatchReport& report, core::WallTime at) override;

  std::map<std::string, LastConditionCycle> Snapshot() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, LastConditionCycle> by_condition_;  // guarded by mu_
};

}  // namespace quell::app
