#include "quell/core/text/terminal_text.h"

namespace quell::core {

std::string EscapeForTerminal(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == 0) {
      out += "\\0";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4U];
      out += kHex[c & 0xfU];
    } else if (c == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      const auto next = static_cast<unsigned char>(text[++i]);
      out += "\\u00";
      out += kHex[next >> 4U];
      out += kHex[next & 0xfU];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace quell::core
