#include "quell/app/run_id.h"

#include <array>

#include "quell/app/split_mix.h"
#include "quell/core/text/hex.h"

namespace quell::app {

std::string NewRunId(uint64_t& state) {
  std::array<uint8_t, 16> bytes{};
  const uint64_t high = SplitMix64(state);
  const uint64_t low = SplitMix64(state);
  for (size_t i = 0; i < 8; ++i) {
    bytes[i] = static_cast<uint8_t>(high >> (8U * i));
    bytes[8 + i] = static_cast<uint8_t>(low >> (8U * i));
  }
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0fU) | 0x40U);  // version 4
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3fU) | 0x80U);  // RFC 4122 variant
  std::string id;
  id.reserve(36);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) id.push_back('-');
    core::AppendHex(id, std::span<const uint8_t>(&bytes[i], 1));
  }
  return id;
}

}  // namespace quell::app
