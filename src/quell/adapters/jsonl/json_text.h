#pragma once

#include <string>
#include <string_view>

namespace quell::jsonl {

// Appends `text` as a JSON string literal. Quotes, backslashes and control characters are
// escaped; other bytes (UTF-8 included) pass through, since the parser already validated them.
void AppendJsonString(std::string& out, std::string_view text);

}  // namespace quell::jsonl
