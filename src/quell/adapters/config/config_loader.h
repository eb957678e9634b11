#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/adapters/config/env_expand.h"
#include "quell/core/result.h"

namespace quell::config {

// Reads and validates a quell.yaml. Every problem is kInvalidArgument with one line naming
// file:line:column and the setting; nothing is half-applied because nothing is applied until
// the whole file is valid. The Infrai API key is read here, from the environment variable or
// the file the config names, and appears in no message.
core::Result<Config> LoadConfig(const std::string& path, const EnvLookup& env);

// LoadConfig for `quell replay --messages`, which polls nothing: the same checks, except that a
// config need not name any condition (observations of an unnamed condition take the defaults).
// Sources are never contacted, so what only a source needs (its URL, its key) is not required
// here, as LoadConfig does not require it either: `run` and `config check` check it at start.
core::Result<Config> LoadConfigForReplay(const std::string& path, const EnvLookup& env);

// Every problem in the file at `path`, in the order found, each "file:line:column: setting:
// what was expected"; empty when LoadConfig would succeed. For `quell config check`.
std::vector<std::string> CheckConfig(const std::string& path, const EnvLookup& env);

// What `quell config check` works on: every problem CheckConfig finds, and the config as far as
// it could be read (valid settings in place, defaults where a setting was wrong), so the checks
// of what `quell run` needs beyond a well-formed file can run on it too.
struct CheckedConfig {
  Config config;
  std::vector<std::string> errors;
};
CheckedConfig ReadConfigForCheck(const std::string& path, const EnvLookup& env);

// LoadConfig and ReadConfigForCheck over `text` as if it were the file at `path`: messages name
// `path`, files the config names resolve against its folder, and `path` itself is not read.
// For callers that hold the bytes (the config fuzzer), so nothing is written to disk first.
core::Result<Config> LoadConfigText(std::string_view text, const std::string& path,
                                    const EnvLookup& env);
CheckedConfig ReadConfigTextForCheck(std::string_view text, const std::string& path,
                                     const EnvLookup& env);

// Sorts "path:line:column: ..." messages into file order; others (no location) first, stably.
void SortByLocation(const std::string& path, std::vector<std::string>& messages);

// The process environment, for LoadConfig.
EnvLookup ProcessEnv();

}  // namespace quell::config
