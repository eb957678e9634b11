#include "quell/core/engine/flap_history.h"

namespace quell::core {

double FlapHistory::PercentStateChange(uint32_t window) const {
  if (window < 2) return 0;
  const uint32_t states = count_ < window ? count_ : window;
  const uint32_t transitions = window - 1;
  double weighted = 0;
  // Transition i sits between bit i and bit i+1; i == 0 is the newest.
  for (uint32_t i = 0; i + 1 < states; ++i) {
    if (((bits_ >> i) & 1U) != ((bits_ >> (i + 1)) & 1U)) {
      const double age = transitions > 1 ? static_cast<double>(i) / (transitions - 1) : 0.0;
      weighted += 1.2 - 0.4 * age;
    }
  }
  return weighted * 100.0 / transitions;
}

}  // namespace quell::core
