#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace quell::core {

// What AppendJsonString does with U+2028 and U+2029: escape them (JavaScript reads them as line
// ends), or keep them as they are, as most JSON writers do (quell-sim's pages match nlohmann's).
enum class LineSeparators : uint8_t { kEscape, kVerbatim };

// Appends `text` as a JSON string literal, quotes included. '"' and '\' are escaped, control
// characters become \n, \t, ... or \u00XX, U+2028 and U+2029 become \u2028 and \u2029 (unless
// kVerbatim), and bytes that are not valid UTF-8 become U+FFFD, so the result is valid JSON in
// valid UTF-8 whatever the input. quell's one JSON string escaper.
void AppendJsonString(std::string& out, std::string_view text,
                      LineSeparators separators = LineSeparators::kEscape);

// Like AppendJsonString, but appends at most `max_bytes` (at least 5). When the literal does not
// fit, it holds as many whole characters as fit followed by "…", and the result is false.
bool AppendJsonStringWithin(std::string& out, std::string_view text, size_t max_bytes);

}  // namespace quell::core
