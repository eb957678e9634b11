#include "quell/app/run_id.h"

#include <array>

namespace quell::app {
namespace {

uint64_t Next(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}

}  // namespace

std::string NewRunId(uint64_t& state) {
  std::array<uint8_t, 16> bytes{};
  const uint64_t high = Next(state);
  const uint64_t low = Next(state);
  for (size_t i = 0; i < 8; ++i) {
    bytes[i] = static_cast<uint8_t>(high >> (8U * i));
    bytes[8 + i] = static_cast<uint8_t>(low >> (8U * i));
  }
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0fU) | 0x40U);  // version 4
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3fU) | 0x80U);  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(36);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) id.push_back('-');
    id.push_back(kHex[bytes[i] >> 4U]);
    id.push_back(kHex[bytes[i] & 0x0fU]);
  }
  return id;
}

}  // namespace quell::app
