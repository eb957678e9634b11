#include "quell/adapters/config/secret_reader.h"

#include <cctype>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

namespace quell::config {

std::optional<std::string> ReadSecretFile(const std::filesystem::path& path, std::string& why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = "cannot read " + path.string() + ": " + std::generic_category().message(errno);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string secret = text.str();
  while (!secret.empty() && std::isspace(static_cast<unsigned char>(secret.back()))) {
    secret.pop_back();
  }
  if (secret.empty()) {
    why = path.string() + " is empty";
    return std::nullopt;
  }
  return secret;
}

SecretRef ReadSecret(MapReader& section, std::string_view name, const std::filesystem::path& dir,
                     bool required, std::string_view default_env) {
  SecretRef out;
  const std::string env_key = std::string(name) + "_env";
  const std::string file_key = std::string(name) + "_file";
  if (section.HasRefused(name)) {
    section.Fail(name, "secrets do not belong in the config: name an environment variable in " +
                           env_key + " or a file in " + file_key);
    return out;
  }
  std::string env_name{default_env};
  std::string file;
  section.Read(env_key, env_name);
  section.Read(file_key, file);
  if (!file.empty()) {
    std::filesystem::path path(file);
    if (path.is_relative()) path = dir / path;
    std::string why;
    if (auto secret = ReadSecretFile(path, why)) {
      out.value = std::move(*secret);
      out.origin = "file " + path.string();
    } else {
      out.unresolved = section.Locate(file_key) + ": " + why;
    }
    return out;
  }
  if (env_name.empty()) {
    if (required) section.Fail("", "needs " + env_key + " or " + file_key);
    return out;
  }
  out.origin = "environment variable " + env_name;
  if (auto value = section.context().env(env_name); value && !value->empty()) {
    out.value = std::move(*value);
  } else if (required || section.Has(env_key)) {
    // A variable the config names is wanted, optional secret or not: left unset, the feature
    // it turns on (an ack button, a token) would silently not be there.
    out.unresolved = section.Locate(env_key) + ": " + env_name + " is not set";
  }
  return out;
}

}  // namespace quell::config
