#pragma once

#include <cstdint>
#include <optional>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// Nagios-style flap detection: the weighted share of state changes over the last `window`
// observations. A key starts flapping at >= high_percent and stops below low_percent; the gap is
// hysteresis so the flag itself does not flap.
struct FlapDamping {
  uint32_t window = 21;
  double low_percent = 20.0;
  double high_percent = 30.0;
  // While flapping, a key that fails again within this long of its resolve continues the old
  // incident (same generation, no page) instead of opening a new one.
  Duration reopen_within = std::chrono::minutes{30};
};

// How one condition turns observations into notifications. The defaults reproduce the
// reference behaviour exactly; every optional knob is off unless set.
struct Policy {
  Duration cooldown = std::chrono::minutes{10};
  uint32_t healthy_polls_to_close = 3;
  // The pending period: a key opens (and pages) only at its Nth unhealthy observation in a row.
  // 1 opens at the first, as the reference does.
  uint32_t unhealthy_polls_to_open = 1;

  std::optional<FlapDamping> flap;
  std::optional<uint32_t> renotify_limit;  // cooldown renotifies per incident generation
  std::optional<Duration> min_open;        // an incident stays open at least this long
  uint32_t evidence_limit = 5;             // recent evidence entries kept per incident
};

// kInvalidArgument with a message naming the offending field when `policy` cannot be used.
Status Validate(const Policy& policy);

}  // namespace quell::core
