#include "quell/core/text/utf8.h"

#include <cstdint>

namespace quell::core {
namespace {

uint8_t Byte(std::string_view s, size_t i) { return static_cast<uint8_t>(s[i]); }

bool IsContinuation(uint8_t b) { return (b & 0xC0U) == 0x80U; }

}  // namespace

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const uint8_t lead = Byte(s, i);
  if (lead < 0x80U) return 1;
  size_t length = 0;
  // The allowed range of the second byte excludes overlong forms (E0, F0), surrogates (ED) and
  // values past U+10FFFF (F4), per the table in RFC 3629 section 4.
  uint8_t low = 0x80U;
  uint8_t high = 0xBFU;
  if (lead >= 0xC2U && lead <= 0xDFU) {
    length = 2;
  } else if (lead >= 0xE0U && lead <= 0xEFU) {
    length = 3;
    if (lead == 0xE0U) low = 0xA0U;
    if (lead == 0xEDU) high = 0x9FU;
  } else if (lead >= 0xF0U && lead <= 0xF4U) {
    length = 4;
    if (lead == 0xF0U) low = 0x90U;
    if (lead == 0xF4U) high = 0x8FU;
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  const uint8_t second = Byte(s, i + 1);
  if (second < low || second > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (!IsContinuation(Byte(s, i + k))) return 0;
  }
  return length;
}

size_t Utf8CutPoint(std::string_view s, size_t max_bytes) {
  if (max_bytes >= s.size()) return s.size();
  // A sequence is at most 4 bytes, so its lead byte is at most 3 bytes before the cut.
  for (size_t back = 1; back <= 3 && back <= max_bytes; ++back) {
    const size_t start = max_bytes - back;
    if (IsContinuation(Byte(s, start))) continue;
    const size_t length = Utf8SequenceLength(s, start);
    return start + length > max_bytes ? start : max_bytes;
  }
  return max_bytes;
}

}  // namespace quell::core
