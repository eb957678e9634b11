#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace quell::core {

// Appends each byte as two lowercase hex digits: quell's one hex encoder (digests, MACs,
// random tokens and ids).
void AppendHex(std::string& out, std::span<const uint8_t> bytes);

// `bytes` as lowercase hex.
std::string HexOf(std::span<const uint8_t> bytes);

}  // namespace quell::core
