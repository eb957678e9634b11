#include "quell/core/text/json_escape.h"

#include <array>
#include <cstdint>

#include "quell/core/text/utf8.h"

namespace quell::core {
namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // U+2026

void AppendUnicodeEscape(std::string& out, unsigned code) {
  static constexpr std::array<char, 16> kHex = {'0', '1', '2', '3', '4', '5', '6', '7',
                                                '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
  out.append("\\u");
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(code >> shift) & 0xFU]);
}

// Appends the escaped form of the character at text[i]; returns how many bytes it took.
size_t AppendEscapedChar(std::string& out, std::string_view text, size_t i,
                         LineSeparators separators = LineSeparators::kEscape) {
  const char c = text[i];
  const auto byte = static_cast<uint8_t>(c);
  switch (c) {
    case '"':
      out.append("\\\"");
      return 1;
    case '\\':
      out.append("\\\\");
      return 1;
    case '\b':
      out.append("\\b");
      return 1;
    case '\f':
      out.append("\\f");
      return 1;
    case '\n':
      out.append("\\n");
      return 1;
    case '\r':
      out.append("\\r");
      return 1;
    case '\t':
      out.append("\\t");
      return 1;
    default:
      break;
  }
  if (byte < 0x20U) {
    AppendUnicodeEscape(out, byte);
    return 1;
  }
  const size_t length = Utf8SequenceLength(text, i);
  if (length == 0) {
    out.append("\xEF\xBF\xBD");  // U+FFFD REPLACEMENT CHARACTER, one per invalid byte
    return 1;
  }
  const std::string_view sequence = text.substr(i, length);
  if (separators == LineSeparators::kEscape &&
      (sequence == "\xE2\x80\xA8" || sequence == "\xE2\x80\xA9")) {
    AppendUnicodeEscape(out, sequence[2] == '\xA8' ? 0x2028U : 0x2029U);
  } else {
    out.append(sequence);
  }
  return length;
}

// Printable ASCII other than '"' and '\\' is copied as it is, so runs of it go in one append.
bool IsVerbatim(char c) {
  const auto byte = static_cast<uint8_t>(c);
  return byte >= 0x20U && byte < 0x80U && c != '"' && c != '\\';
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view text, LineSeparators separators) {
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    size_t run = i;
    while (run < text.size() && IsVerbatim(text[run])) ++run;
    out.append(text.substr(i, run - i));
    i = run < text.size() ? run + AppendEscapedChar(out, text, run, separators) : run;
  }
  out.push_back('"');
}

bool AppendJsonStringWithin(std::string& out, std::string_view text, size_t max_bytes) {
  const size_t start = out.size();
  AppendJsonString(out, text);
  if (out.size() - start <= max_bytes) return true;
  out.resize(start);
  const size_t room = max_bytes < kEllipsis.size() + 2 ? 0 : max_bytes - kEllipsis.size() - 2;
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    const size_t before = out.size();
    const size_t used = AppendEscapedChar(out, text, i);
    if (out.size() - start - 1 > room) {
      out.resize(before);
      break;
    }
    i += used;
  }
  out.append(kEllipsis);
  out.push_back('"');
  return false;
}

}  // namespace quell::core
