#include "quell/core/redact/redact.h"
#include "quell/core/text/utf8.h"

namespace quell::core {

std::string RedactActorName(std::string_view name) {
  // One line of words: control bytes (a line break, a tab, DEL) become one blank, so a name
  // cannot start a forged log line or a second line in a page or a table.
  // Bytes that are not UTF-8 (an ack page's name field posted in Latin-1) become U+FFFD: the
  // name is stored (PostgreSQL refuses such text), logged and shown on pages as UTF-8.
  std::string line;
  for (size_t i = 0; i < name.size();) {
    const auto byte = static_cast<unsigned char>(name[i]);
    if (byte >= 0x80) {
      const size_t length = Utf8SequenceLength(name, i);
      if (length == 0) {
        line += "\xEF\xBF\xBD";
        ++i;
      } else {
        line.append(name.substr(i, length));
        i += length;
      }
      continue;
    }
    const bool blank = byte < 0x20 || byte == 0x7f || byte == ' ';
    if (blank) {
      if (!line.empty() && line.back() != ' ') line += ' ';
    } else {
      line += static_cast<char>(byte);
    }
    ++i;
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
