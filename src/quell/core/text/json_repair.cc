#include "quell/core/text/json_repair.h"

#include <cstdint>
#include <optional>

#include "quell/core/text/utf8.h"

namespace quell::core {
namespace {

// The code unit of the escape "\uXXXX" starting at text[i] (the backslash), if it is one.
std::optional<uint32_t> EscapedUnit(std::string_view text, size_t i) {
  if (i + 6 > text.size() || text[i] != '\\' || text[i + 1] != 'u') return std::nullopt;
  uint32_t unit = 0;
  for (size_t k = i + 2; k < i + 6; ++k) {
    const char c = text[k];
    uint32_t digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
    unit = unit * 16 + digit;
  }
  return unit;
}

bool IsHigh(uint32_t unit) { return unit >= 0xD800U && unit <= 0xDBFFU; }
bool IsLow(uint32_t unit) { return unit >= 0xDC00U && unit <= 0xDFFFU; }

}  // namespace

std::string RepairJsonText(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80U) {
      const size_t length = Utf8SequenceLength(text, i);
      if (length == 0) {
        out.append("\xEF\xBF\xBD");
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    if (byte == '"') in_string = !in_string;
    if (!in_string || byte != '\\' || i + 1 >= text.size()) {
      out.push_back(static_cast<char>(byte));
      ++i;
      continue;
    }
    // An escape inside a string: copied whole, so an escaped quote does not end the string.
    const std::optional<uint32_t> unit = EscapedUnit(text, i);
    if (!unit || (!IsHigh(*unit) && !IsLow(*unit))) {
      out.append(text.substr(i, 2));
      i += 2;
      continue;
    }
    const std::optional<uint32_t> next = EscapedUnit(text, i + 6);
    if (IsHigh(*unit) && next && IsLow(*next)) {
      out.append(text.substr(i, 12));
      i += 12;
      continue;
    }
    out.append("\\ufffd");
    i += 6;
  }
  return out;
}

}  // namespace quell::core
