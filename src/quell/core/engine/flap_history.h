#pragma once

#include <cstdint>

namespace quell::core {

// The last (up to 32) healthy/unhealthy states of one key, newest in bit 0. Unknown polls are
// not recorded: they say nothing about the state.
class FlapHistory {
 public:
  FlapHistory() = default;
  FlapHistory(uint32_t bits, uint32_t count) : bits_(bits), count_(count > 32 ? 32 : count) {}

  void Push(bool unhealthy) {
    bits_ = (bits_ << 1U) | (unhealthy ? 1U : 0U);
    if (count_ < 32) ++count_;
  }

  // Weighted percentage of state changes among the last `window` states, as Nagios computes it:
  // the newest change weighs 1.2, the oldest 0.8, and the sum is divided by window - 1, so a
  // young history can only under-report flapping, never over-report it.
  double PercentStateChange(uint32_t window) const;

  uint32_t bits() const { return bits_; }
  uint32_t count() const { return count_; }

 private:
  uint32_t bits_ = 0;
  uint32_t count_ = 0;
};

}  // namespace quell::core
