#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "quell/core/result.h"

namespace quell::config {

using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// Expands ${NAME} and ${NAME:-fallback} (the fallback when NAME is unset or empty); "$$" is a
// literal "$". kInvalidArgument naming the variable when it is unset and has no fallback, or
// when a "${" is never closed.
core::Result<std::string> ExpandEnv(std::string_view text, const EnvLookup& env);

}  // namespace quell::config
