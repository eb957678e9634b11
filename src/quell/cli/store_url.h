#pragma once

#include <memory>
#include <string>

#include "quell/core/ports/incident_store.h"
#include "quell/core/result.h"

namespace quell::cli {

// Opens the store a --store URL names: "sqlite:PATH" (optionally "?busy_timeout_ms=N") or
// "postgresql://..." / "postgres://...". kInvalidArgument for any other scheme; otherwise the
// store's own open errors, each one line.
core::Result<std::unique_ptr<core::IncidentStore>> OpenStore(const std::string& url);

}  // namespace quell::cli
