#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "quell/core/result.h"
#include "quell/core/text/time.h"
#include "quell/sim/store.h"

namespace quell::sim {

// The group object every listing serves, with the field names of INFRAI.md §1.3 (all [INF]).
// Both `status` and `is_resolved` are present because the public samples read either one.
nlohmann::json GroupToJson(const Group& g);
// GroupToJson plus representative_event, latest_event and the `recent` newest events.
nlohmann::json GroupDetailToJson(const Group& g, size_t recent);
nlohmann::json EventToJson(const Event& e);

// Builds a group from an admin or scenario object; `now` fills missing timestamps. Fails with
// kInvalidArgument naming the bad field.
core::Result<Group> GroupFromJson(const nlohmann::json& j, core::WallTime now);

// Small readers that tolerate absent or mistyped fields (the simulator is lenient on input).
std::string StringField(const nlohmann::json& j, const char* key, std::string fallback = "");
Tags TagsField(const nlohmann::json& j, const char* key);
// Reads an RFC 3339 string at `key`; absent gives `fallback`, malformed is an error.
core::Result<core::WallTime> TimeField(const nlohmann::json& j, const char* key,
                                       core::WallTime fallback);

}  // namespace quell::sim
