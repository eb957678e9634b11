#pragma once

#include <string>
#include <string_view>

namespace quell::core {

// JSON text as an upstream may send it, made readable by a strict parser: every byte that is not
// part of well-formed UTF-8 becomes U+FFFD (one per byte, as AppendJsonString writes it), and
// every \u escape of a lone surrogate (a UTF-16 string cut inside a pair) becomes \ufffd. Nothing
// else changes, so valid JSON comes back byte for byte and invalid JSON stays invalid.
std::string RepairJsonText(std::string_view text);

}  // namespace quell::core
