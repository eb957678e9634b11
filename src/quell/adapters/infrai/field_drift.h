#pragma once

#include <simdjson.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quell/adapters/infrai/infrai_fields.h"
#include "quell/core/conditions/error_group_condition.h"
#include "quell/core/result.h"

namespace quell::infrai {

// The group fields the conditions read beyond the id and status ParseGroup already requires:
// what key templates name ("tags" for any tags.NAME), "level" for a level filter, "tags" for a
// tag filter, "last_seen" for the new_events rule. Sorted and unique.
std::vector<std::string> FieldsRead(std::span<const core::ErrorGroupCondition> conditions);

// Upstream schema drift on one listing page. A field a condition reads that is missing (under
// every alias; null counts as present) from more than half of the page's groups was renamed or
// dropped upstream, not left out by a few groups, and reading on would resolve or re-key every
// incident. kCorrupt naming `what`, the field, how many groups lack it, the names tried and the
// infrai.fields entry to map it in. An empty page passes: it shows no group to judge by.
core::Status CheckFieldDrift(simdjson::dom::array groups, const InfraiFields& names,
                             std::span<const std::string> fields_read, std::string_view what);

}  // namespace quell::infrai
