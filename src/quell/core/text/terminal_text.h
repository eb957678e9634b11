#pragma once

#include <string>
#include <string_view>

namespace quell::core {

// `text` made safe to print on a terminal: C0 controls and DEL become `\n`, `\t`, `\r`, `\0` or
// `\xNN`, C1 controls (U+0080..U+009F, which some terminals obey as escape sequences) become
// `\u00NN`, and a backslash is doubled so an escape can be told from the text. Keys and
// evidence come from the watched systems: printed raw, an ESC sequence could repaint the
// operator's screen, and an embedded NUL would cut the line short.
std::string EscapeForTerminal(std::string_view text);

}  // namespace quell::core
