#pragma once

#include <string>

#include "quell/core/conditions/error_group.h"
#include "quell/core/engine/evidence.h"
#include "quell/core/redact/redact.h"

namespace quell::app {

// The evidence an incident keeps of one error group: the group's summary fields and tags,
// and with its detail the newest event's id, message and exception. Minimized (a handful of
// fields, each cut) and redacted before it is ever stored or sent.
std::string GroupEvidence(const core::ErrorGroup& group, const core::GroupDetail* detail,
                          const core::RedactOptions& redact,
                          const core::EvidenceOptions& options = {});

}  // namespace quell::app
