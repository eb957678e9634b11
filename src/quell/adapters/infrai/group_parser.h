#pragma once

#include <simdjson.h>

#include <span>
#include <string>
#include <string_view>

#include "quell/adapters/infrai/infrai_fields.h"
#include "quell/core/conditions/error_group.h"
#include "quell/core/result.h"

namespace quell::infrai {

// Reads one group object under the configured field names. An id and a resolved state
// (`status` or `is_resolved`) are required: without them quell cannot key the group or tell
// its health, so a renamed field fails the poll loudly (kCorrupt naming `where`, the field and
// the names tried) instead of silently reading every group as healthy. `extra_fields` are
// copied into ErrorGroup::fields for key templates.
core::Status ParseGroup(simdjson::dom::object object, const InfraiFields& names,
                        std::span<const std::string> extra_fields, std::string_view where,
                        core::ErrorGroup& out);

}  // namespace quell::infrai
