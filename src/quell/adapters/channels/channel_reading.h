#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "quell/adapters/config/yaml_reader.h"

namespace quell::channels {

// What a channel type's reader is handed: its item of `channels:` (name, type and the shared
// delivery keys already read), and where to leave what the reader cannot settle itself.
struct ChannelReading {
  config::MapReader& item;
  const std::filesystem::path& dir;  // the config file's folder: secret_file paths are relative
  const std::string& name;           // the channel's name, for warnings
  // Located messages for secrets whose variable is unset or whose file cannot be read: the
  // poller routes to the channel without them; `quell dispatch` refuses to start.
  std::vector<std::string>& unresolved;
  // Those of them a callback needs: `quell run` refuses to start with them even with
  // --no-dispatch, since its HTTP surface checks the callbacks.
  std::vector<std::string>& callbacks;
  std::vector<std::string>& warnings;  // the config's warnings, printed at every start

  // The secret `<name>_env` / `<name>_file` refers to (see config::ReadSecret); an unresolved
  // reference is kept in `unresolved` for `quell dispatch` to report.
  std::string Secret(std::string_view secret, bool required);
  // A callback's signing secret: unresolved, it is also kept in `callbacks`, since the HTTP
  // surface that checks the callbacks needs it even where this process sends nothing.
  std::string CallbackSecret(std::string_view secret);
  // Fails `key` unless `url` is given and starts with one of `schemes`.
  void RequireUrl(const char* key, const std::string& url,
                  std::initializer_list<const char*> schemes);
  // The URL of a chat webhook that is itself the credential: exactly one of `url` (inline; the
  // docs recommend "${VAR}"), `url_env` or `url_file`. The value is checked to be http(s)
  // without ever being quoted.
  std::string CredentialUrl();
};

}  // namespace quell::channels
