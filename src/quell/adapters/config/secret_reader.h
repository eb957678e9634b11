#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "quell/adapters/config/yaml_reader.h"

namespace quell::config {

// Reads a secret named `name` only by reference: `<name>_env` (an environment variable) or
// `<name>_file` (relative to the config's directory; trailing whitespace dropped). An inline
// `<name>` is refused without echoing it, and `required` fails when neither is given. A
// reference that does not resolve (a `<name>_env` whose variable is unset, a `default_env`
// unset when `required`, an unreadable file) is not a config error: `unresolved` says so,
// located, and the command that needs the secret refuses to start with it (`quell poll-once`
// runs without the channels' credentials).
// `origin` says where the value came from, for messages that must not carry the value itself.
struct SecretRef {
  std::string value;
  std::string origin;
  std::string unresolved;  // "quell.yaml:7:5: channels[0].secret_env: X is not set"; empty: ok
};

// The whole file at `path` with trailing whitespace dropped; std::nullopt and `why` when it
// cannot be read or is empty.
std::optional<std::string> ReadSecretFile(const std::filesystem::path& path, std::string& why);

SecretRef ReadSecret(MapReader& section, std::string_view name, const std::filesystem::path& dir,
                     bool required, std::string_view default_env = {});

}  // namespace quell::config
