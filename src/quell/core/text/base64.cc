#include "quell/core/text/base64.h"

#include <cstdint>

namespace quell::core {
namespace {

constexpr char kStandard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kUrlSafe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

}  // namespace

void AppendBase64(std::string& out, std::string_view bytes, Base64Alphabet alphabet) {
  const char* digits = alphabet == Base64Alphabet::kStandard ? kStandard : kUrlSafe;
  uint32_t bits = 0;
  unsigned count = 0;
  for (const char c : bytes) {
    bits = (bits << 8U) | static_cast<unsigned char>(c);
    count += 8;
    while (count >= 6) {
      count -= 6;
      out += digits[(bits >> count) & 0x3FU];
    }
  }
  if (count > 0) out += digits[(bits << (6 - count)) & 0x3FU];
  if (alphabet == Base64Alphabet::kStandard) {
    // One byte left over makes two characters and "==", two make three and "=".
    const size_t rest = bytes.size() % 3;
    if (rest > 0) out.append(3 - rest, '=');
  }
}

std::optional<std::string> DecodeBase64Url(std::string_view text) {
  std::string out;
  uint32_t bits = 0;
  unsigned count = 0;
  for (const char c : text) {
    const std::string_view digits(kUrlSafe, 64);
    const size_t at = digits.find(c);
    if (at == std::string_view::npos) return std::nullopt;
    bits = (bits << 6U) | static_cast<uint32_t>(at);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xFFU);
    }
  }
  return out;
}

}  // namespace quell::core
