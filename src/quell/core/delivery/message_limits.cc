#include "quell/core/delivery/message_limits.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "quell/core/text/utf8.h"

namespace quell::core {
namespace {

constexpr size_t kGsmSingle = 160;
constexpr size_t kGsmPart = 153;
constexpr size_t kUcsSingle = 70;
constexpr size_t kUcsPart = 67;
constexpr char32_t kReplacement = 0xFFFD;

// The non-ASCII characters of the GSM 03.38 basic table.
constexpr std::array<char32_t, 39> kGsmBasicNonAscii = {
    0x00A3, 0x00A5, 0x00E8, 0x00E9, 0x00F9, 0x00EC, 0x00F2, 0x00C7, 0x00D8, 0x00F8,
    0x00C5, 0x00E5, 0x0394, 0x03A6, 0x0393, 0x039B, 0x03A9, 0x03A0, 0x03A8, 0x03A3,
    0x0398, 0x039E, 0x00C6, 0x00E6, 0x00DF, 0x00C9, 0x00A4, 0x00A1, 0x00C4, 0x00D6,
    0x00D1, 0x00DC, 0x00A7, 0x00BF, 0x00E4, 0x00F6, 0x00F1, 0x00FC, 0x00E0};

// One decoded character: its code point and how many bytes of the text it spans.
struct Char {
  char32_t code = 0;
  size_t bytes = 1;
};

Char DecodeAt(std::string_view s, size_t i) {
  const size_t length = Utf8SequenceLength(s, i);
  if (length == 0) return Char{kReplacement, 1};
  const auto byte = [&](size_t k) { return static_cast<uint32_t>(static_cast<uint8_t>(s[i + k])); };
  uint32_t code = 0;
  switch (length) {
    case 1:
      code = byte(0);
      break;
    case 2:
      code = ((byte(0) & 0x1FU) << 6U) | (byte(1) & 0x3FU);
      break;
    case 3:
      code = ((byte(0) & 0x0FU) << 12U) | ((byte(1) & 0x3FU) << 6U) | (byte(2) & 0x3FU);
      break;
    default:
      code = ((byte(0) & 0x07U) << 18U) | ((byte(1) & 0x3FU) << 12U) | ((byte(2) & 0x3FU) << 6U) |
             (byte(3) & 0x3FU);
      break;
  }
  return Char{static_cast<char32_t>(code), length};
}

// Septets `c` takes in GSM-7: 1 (basic table), 2 (escape + extension table), 0 (not GSM-7).
size_t GsmSeptets(char32_t c) {
  if (c == '\n' || c == '\r') return 1;
  if (c == '\f' || c == '^' || c == '{' || c == '}' || c == '\\' || c == '[' || c == '~' ||
      c == ']' || c == '|' || c == 0x20AC) {
    return 2;
  }
  if (c >= 0x20 && c <= 0x7E) return c == '`' ? 0 : 1;
  return std::find(kGsmBasicNonAscii.begin(), kGsmBasicNonAscii.end(), c) != kGsmBasicNonAscii.end()
             ? 1
             : 0;
}

size_t Ucs2Units(char32_t c) { return c > 0xFFFF ? 2 : 1; }

bool IsGsm7(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const Char ch = DecodeAt(text, i);
    if (GsmSeptets(ch.code) == 0) return false;
    i += ch.bytes;
  }
  return true;
}

size_t Cost(char32_t c, SmsEncoding encoding) {
  return encoding == SmsEncoding::kGsm7 ? GsmSeptets(c) : Ucs2Units(c);
}

// Packs characters into concatenated parts, never splitting one across two parts.
class PartPacker {
 public:
  explicit PartPacker(size_t part_size) : part_size_(part_size) {}
  void Add(size_t cost) {
    units_ += cost;
    if (parts_ == 0 || used_ + cost > part_size_) {
      ++parts_;
      used_ = 0;
    }
    used_ += cost;
  }
  size_t units() const { return units_; }
  size_t parts() const { return parts_; }

 private:
  size_t part_size_;
  size_t units_ = 0;
  size_t used_ = 0;
  size_t parts_ = 0;
};

size_t Segments(const PartPacker& packer, SmsEncoding encoding) {
  const size_t single = encoding == SmsEncoding::kGsm7 ? kGsmSingle : kUcsSingle;
  if (packer.units() == 0) return 0;
  return packer.units() <= single ? 1 : packer.parts();
}

size_t PartSize(SmsEncoding encoding) {
  return encoding == SmsEncoding::kGsm7 ? kGsmPart : kUcsPart;
}

}  // namespace

SmsCount CountSms(std::string_view text) {
  const SmsEncoding encoding = IsGsm7(text) ? SmsEncoding::kGsm7 : SmsEncoding::kUcs2;
  PartPacker packer(PartSize(encoding));
  for (size_t i = 0; i < text.size();) {
    const Char ch = DecodeAt(text, i);
    packer.Add(Cost(ch.code, encoding));
    i += ch.bytes;
  }
  return SmsCount{encoding, packer.units(), Segments(packer, encoding)};
}

std::string FitSms(std::string_view text, size_t max_segments) {
  max_segments = std::max<size_t>(max_segments, 1);
  const SmsCount count = CountSms(text);
  if (count.segments <= max_segments) return std::string(text);
  const SmsEncoding encoding = count.encoding;
  const std::string_view ellipsis = encoding == SmsEncoding::kGsm7 ? "..." : "\u2026";
  const size_t ellipsis_units = encoding == SmsEncoding::kGsm7 ? 3 : 1;
  // With one segment allowed the cut text has no concatenation header: 160 or 70 units.
  const size_t single = encoding == SmsEncoding::kGsm7 ? kGsmSingle : kUcsSingle;
  PartPacker packer(PartSize(encoding));
  size_t keep = 0;
  for (size_t i = 0; i < text.size();) {
    const Char ch = DecodeAt(text, i);
    PartPacker trial = packer;
    trial.Add(Cost(ch.code, encoding));
    PartPacker with_ellipsis = trial;
    for (size_t k = 0; k < ellipsis_units; ++k) with_ellipsis.Add(1);
    const bool fits =
        max_segments == 1 ? with_ellipsis.units() <= single : with_ellipsis.parts() <= max_segments;
    if (!fits) break;
    packer = trial;
    i += ch.bytes;
    keep = i;
  }
  std::string out(text.substr(0, keep));
  out.append(ellipsis);
  return out;
}

std::string CutToChars(std::string_view text, size_t max_chars) {
  max_chars = std::max<size_t>(max_chars, 1);
  size_t chars = 0;
  size_t cut = 0;  // the byte offset after max_chars - 1 characters
  for (size_t i = 0; i < text.size();) {
    const Char ch = DecodeAt(text, i);
    ++chars;
    i += ch.bytes;
    if (chars == max_chars - 1) cut = i;
    if (chars > max_chars) {
      std::string out(text.substr(0, cut));
      out.append("\u2026");
      return out;
    }
  }
  return std::string(text);
}

std::string OneLine(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (const char c : text) {
    if (c == '\r' || c == '\n' || c == '\t') {
      pending_space = true;
      continue;
    }
    if (pending_space && !out.empty() && out.back() != ' ' && c != ' ') out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  const size_t first = out.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  const size_t last = out.find_last_not_of(' ');
  return out.substr(first, last - first + 1);
}

}  // namespace quell::core
