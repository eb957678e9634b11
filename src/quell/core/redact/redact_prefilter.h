#pragma once

// Internal to Redact: cheap necessary conditions for each pass to find anything. Most evidence
// fields (key names, levels, counts, short titles) hold nothing any pass looks for, and running
// all six passes over them, each making a new string, was a quarter of an opening poll cycle.
// Each test here must be true whenever its pass would change the text; a false "maybe" only
// costs the pass it would have skipped.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace quell::core::redact_internal {

struct TextShape {
  bool key_value_cue = false;  // a ':' or '=' (key=value, key: value, scheme://), or "bearer"
  bool at_sign = false;        // every e-mail address has one
  size_t digits = 0;           // cards need 13, phones 7
  size_t longest_token = 0;    // the longest run of base64/path characters; random tokens need 32
};

TextShape ShapeOf(std::string_view text);

// False only when no word in `text` starts like a key RedactKeyTokens looks for (a built-in or
// extra prefix, AKIA/ASIA, or a JWT's eyJ).
bool MayHoldKeyToken(std::string_view text, const std::vector<std::string>& extra_prefixes);

// The least a pass needs, from the pass's own rules (redact_card.cc, redact_phone.cc,
// redact_entropy.cc).
constexpr size_t kMinCardDigits = 13;
constexpr size_t kMinPhoneDigits = 7;
constexpr size_t kMinRandomToken = 32;

}  // namespace quell::core::redact_internal
