#include "quell/core/engine/policy.h"

namespace quell::core {

Status Validate(const Policy& policy) {
  auto invalid = [](const char* message) {
    return MakeError(ErrorCode::kInvalidArgument, message);
  };
  if (policy.cooldown < Duration{0}) return invalid("cooldown must not be negative");
  if (policy.healthy_polls_to_close < 1)
    return invalid("healthy_polls_to_close must be at least 1");
  if (policy.unhealthy_polls_to_open < 1)
    return invalid("unhealthy_polls_to_open must be at least 1");
  if (policy.min_open && *policy.min_open < Duration{0}) {
    return invalid("min_open must not be negative");
  }
  if (policy.flap) {
    const FlapDamping& flap = *policy.flap;
    if (flap.window < 3 || flap.window > 32) return invalid("flap window must be within 3..32");
    if (!(flap.low_percent >= 0 && flap.low_percent < flap.high_percent &&
          flap.high_percent <= 100)) {
      return invalid("flap thresholds need 0 <= low < high <= 100");
    }
    if (flap.reopen_within < Duration{0}) return invalid("flap reopen_within must not be negative");
  }
  return {};
}

}  // namespace quell::core
