#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quell/core/delivery/maintenance_window.h"
#include "quell/core/ports/operator_store.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// The window as the poller applies it beside the configured ones: open during its span only.
inline core::MaintenanceWindow AsMaintenanceWindow(const core::OneOffWindow& window) {
  core::MaintenanceWindow out;
  out.name = window.name;
  out.keys = window.keys;
  out.labels = window.labels;
  out.span = core::WindowSpan{window.starts_at, window.ends_at};
  return out;
}

// What an operator asks for when adding a one-off maintenance window (POST /v1/maintenance).
struct OneOffRequest {
  std::string name;  // empty: "one-off"
  std::string keys;  // a key glob; required
  core::Labels labels;
  std::optional<core::WallTime> starts_at;  // none: now
  std::optional<core::WallTime> ends_at;    // exactly one of ends_at and duration
  std::optional<core::Duration> duration;   // from starts_at
  std::string reason;                       // required
  std::string by;
};

// How long an ended window stays listed (GET /v1/maintenance's "one_off").
inline constexpr core::Duration kOneOffListedFor = std::chrono::hours(24);

// The operator's one-off maintenance windows over the store. Errors are the store's, and
// kInvalidArgument naming the field of a bad request. Not thread-safe (one store per thread).
class OneOffMaintenance {
 public:
  explicit OneOffMaintenance(core::OperatorStore& store) : store_(store) {}

  // Stores the window the request describes, seen at `now`: its end must come after its start
  // and after now. Returns it with its id.
  core::Result<core::OneOffWindow> Add(const OneOffRequest& request, core::WallTime now);
  // Ends window `id` at `now` (kNotFound, kConflict when it had ended).
  core::Result<core::OneOffWindow> Expire(uint64_t id, core::WallTime now);
  // The windows ending after now - kOneOffListedFor, newest start first.
  core::Result<std::vector<core::OneOffWindow>> Listed(core::WallTime now);

 private:
  core::OperatorStore& store_;
};

}  // namespace quell::app
