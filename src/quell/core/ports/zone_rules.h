#pragma once

#include <chrono>
#include <string_view>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A wall-clock reading in some zone: its fields are the local date and time, not an instant.
using LocalTime = std::chrono::local_time<Duration>;

// IANA time zone rules ("Europe/Berlin"): the one place that knows daylight-saving dates, so
// the core computes maintenance windows and quiet hours without a zone database of its own.
// Implementations are thread-safe.
class ZoneRules {
 public:
  virtual ~ZoneRules() = default;

  // kNotFound (naming the zone) unless `zone` is a zone the rules know.
  virtual Status CheckZone(std::string_view zone) const = 0;
  // What the clocks in `zone` read at the instant `at`. kNotFound for an unknown zone.
  virtual Result<LocalTime> ToLocal(std::string_view zone, WallTime at) const = 0;
  // The instant the clocks in `zone` read `local`. A reading skipped by a change to summer time
  // maps to the instant of the change; one read twice (the change back) to its first instant.
  // kNotFound for an unknown zone.
  virtual Result<WallTime> ToUtc(std::string_view zone, LocalTime local) const = 0;
};

}  // namespace quell::core
