#include "quell/adapters/config/unclosed_quote.h"

namespace quell::config {
namespace {

bool StartsScalar(char before) {
  return before == '\0' || before == ':' || before == '-' || before == '[' || before == '{' ||
         before == ',' || before == '?';
}

bool Before(TextPosition a, TextPosition b) {
  return a.line < b.line || (a.line == b.line && a.column < b.column);
}

}  // namespace

std::optional<TextPosition> SuspectQuoteBefore(std::string_view text, TextPosition until) {
  char quote = 0;  // the open quote's character, 0 outside a quoted scalar
  TextPosition opened;
  std::optional<TextPosition> suspect;  // the last quoted scalar that ran over lines
  TextPosition at{1, 1};
  char last_significant = '\0';  // the last non-blank character outside quotes on this line
  for (size_t i = 0; i < text.size() && Before(at, until); ++i) {
    const char c = text[i];
    if (c == '\n') {
      at = {at.line + 1, 1};
      last_significant = '\0';
      continue;
    }
    if (quote == '"') {
      if (c == '\\') {
        ++i;  // an escaped character, possibly a quote
        ++at.column;
      } else if (c == '"') {
        quote = 0;
        if (at.line > opened.line) suspect = opened;
      }
    } else if (quote == '\'') {
      if (c == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' is a quote inside a single-quoted scalar
        ++at.column;
      } else if (c == '\'') {
        quote = 0;
        if (at.line > opened.line) suspect = opened;
      }
    } else if (c == '#' && (last_significant == '\0' || i == 0 || text[i - 1] == ' ')) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;  // a comment, to the line's end
    } else if ((c == '"' || c == '\'') && StartsScalar(last_significant)) {
      quote = c;
      opened = at;
      last_significant = c;
    } else if (c != ' ' && c != '\t') {
      last_significant = c;
    }
    ++at.column;
  }
  if (quote != 0) return opened;
  return suspect;
}

}  // namespace quell::config
