#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "quell/core/result.h"
#include "quell/core/text/time.h"
#include "quell/sim/store.h"

namespace quell::sim {

struct CaptureOutcome {
  std::string event_id;
  std::string error_group_id;
  bool created = false;
  bool reopened = false;
};

// errors.capture and errors.message on the store. Accepts the union of the bodies in INFRAI.md
// §1.1/§1.2 (message|exception|text required). Groups by `fingerprint` when given, otherwise by
// exception type + message + code [INF]. Fails with kInvalidArgument naming what is missing.
core::Result<CaptureOutcome> Capture(Store& store, const nlohmann::json& body, core::WallTime now);

}  // namespace quell::sim
