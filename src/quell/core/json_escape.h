#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace quell::core {

// Appends `text` as a JSON string literal, quotes included. '"' and '\' are escaped, control
// characters become \n, \t, ... or \u00XX, U+2028 and U+2029 become \u2028 and \u2029 (JavaScript
// reads them as line ends), and bytes that are not valid UTF-8 become U+FFFD, so the result is
// valid JSON in valid UTF-8 whatever the input.
void AppendJsonString(std::string& out, std::string_view text);

// Like AppendJsonString, but appends at most `max_bytes` (at least 5). When the literal does not
// fit, it holds as many whole characters as fit followed by "…", and the result is false.
bool AppendJsonStringWithin(std::string& out, std::string_view text, size_t max_bytes);

}  // namespace quell::core
