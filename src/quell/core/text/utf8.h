#pragma once

#include <cstddef>
#include <string_view>

namespace quell::core {

// Length (1 to 4) of the well-formed UTF-8 sequence at s[i], or 0 when the bytes there are not
// one: a stray continuation byte, an overlong form, a surrogate, a value past U+10FFFF, or a
// sequence truncated by the end of `s`. Requires i < s.size().
size_t Utf8SequenceLength(std::string_view s, size_t i);

// The largest n <= max_bytes such that s.substr(0, n) does not end inside a well-formed
// multi-byte sequence. Invalid bytes count as single characters, so they may be cut anywhere.
size_t Utf8CutPoint(std::string_view s, size_t max_bytes);

}  // namespace quell::core
