#include "quell/app/backoff.h"

#include <cmath>

namespace quell::app {

core::Duration BackoffDelay(const RetryPolicy& policy, uint32_t retry_index, uint64_t random_bits) {
  const auto max_us = static_cast<double>(policy.max_backoff.count());
  // In double: the exponent may be large, and inf or NaN compare as "not below the cap".
  const double grown = static_cast<double>(policy.initial_backoff.count()) *
                       std::pow(policy.multiplier, static_cast<double>(retry_index));
  const double ceiling_us = grown < max_us ? grown : max_us;
  if (!(ceiling_us >= 1.0)) return core::Duration::zero();  // also a zero or negative policy
  const auto ceiling = static_cast<uint64_t>(ceiling_us);
  // The modulo bias is about ceiling / 2^64: under 2^-30 for any ceiling below four hours.
  return core::Duration{static_cast<core::Duration::rep>(random_bits % (ceiling + 1))};
}

}  // namespace quell::app
