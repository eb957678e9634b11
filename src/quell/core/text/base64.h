#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace quell::core {

// quell's one base64 codec (RFC 4648): the standard alphabet with '=' padding, for MIME
// encoded words, and the URL-safe alphabet without padding, for tokens in links.
enum class Base64Alphabet : bool { kStandard, kUrlSafe };

// Appends `bytes` encoded; kStandard pads to a multiple of 4 with '=', kUrlSafe never pads.
void AppendBase64(std::string& out, std::string_view bytes,
                  Base64Alphabet alphabet = Base64Alphabet::kStandard);

// `text` (URL-safe, unpadded) decoded; nullopt for a character outside the alphabet.
std::optional<std::string> DecodeBase64Url(std::string_view text);

}  // namespace quell::core
