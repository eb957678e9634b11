#pragma once

#include <optional>
#include <string_view>

namespace quell::config {

struct TextPosition {
  int line = 0;    // 1-based
  int column = 0;  // 1-based
};

// Where the last quoted YAML scalar before `until` (1-based line, column) began, if it is still
// open there or ran over more than one line; else nullopt. A quote left open is noticed by a
// parser only where the file stops making sense: the scalar runs on to the next quote character,
// often in a comment dozens of lines down, and the error is reported further still. Called
// after a parse error, so a quoted value that spans lines is the likely culprit (legal YAML,
// but rare in a configuration). Quotes count only where a scalar starts (after `: `, `- `, `[`,
// `{`, `,` or at the start of a line), so the apostrophe in `it's` does not; comments are
// skipped.
std::optional<TextPosition> SuspectQuoteBefore(std::string_view text, TextPosition until);

}  // namespace quell::config
