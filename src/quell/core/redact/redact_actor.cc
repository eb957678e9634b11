#include "quell/core/redact/redact.h"
#include "quell/core/text/utf8.h"

namespace quell::core {

std::string RedactActorName(std::string_view name) {
  // One line of words: control bytes (a line break, a tab, DEL) become one blank, so a name
  // cannot start a forged log line or a second line in a page or a table.
  std::string line;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    const bool blank = byte < 0x20 || byte == 0x7f || c == ' ';
    if (blank) {
      if (!line.empty() && line.back() != ' ') line += ' ';
    } else {
      line += c;
    }
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  RedactOptions options;
  options.max_text = 0;           // cut below, without the "[cut N bytes]" note
  options.random_tokens = false;  // a chat user id (U024BE7LH) is whom to ask, not a secret
  std::string redacted = Redact(line, options);
  redacted.resize(Utf8CutPoint(redacted, kMaxActorName));
  while (!redacted.empty() && redacted.back() == ' ') redacted.pop_back();
  return redacted;
}

}  // namespace quell::core
