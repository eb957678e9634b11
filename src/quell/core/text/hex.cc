#include "quell/core/text/hex.h"

namespace quell::core {

void AppendHex(std::string& out, std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out.reserve(out.size() + bytes.size() * 2);
  for (const uint8_t byte : bytes) {
    out.push_back(kDigits[byte >> 4U]);
    out.push_back(kDigits[byte & 0x0fU]);
  }
}

std::string HexOf(std::span<const uint8_t> bytes) {
  std::string out;
  AppendHex(out, bytes);
  return out;
}

}  // namespace quell::core
