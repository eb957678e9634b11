#include "quell/adapters/templates/slack_text.h"

namespace quell::templates {

std::string SlackEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendSlackEscaped(out, text);
  return out;
}

void AppendSlackEscaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
}

}  // namespace quell::templates
