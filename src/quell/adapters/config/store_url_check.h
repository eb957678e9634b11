#pragma once

#include <string_view>

#include "quell/core/result.h"

namespace quell::config {

// Whether `url` names a store quell can open: "sqlite:PATH" (optionally
// "?busy_timeout_ms=N") or "postgresql://..." / "postgres://...". Only the form is checked,
// nothing is opened. kInvalidArgument says what was expected; a password in `url` is masked.
core::Status CheckStoreUrl(std::string_view url);

}  // namespace quell::config
