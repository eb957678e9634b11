#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/engine/decision.h"
#include "quell/core/engine/incident.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::store {

// Both stores keep times as BIGINT microseconds since the Unix epoch (UTC), the core's unit.
inline int64_t ToMicros(core::WallTime t) { return t.time_since_epoch().count(); }
inline core::WallTime FromMicros(int64_t micros) { return core::WallTime(core::Duration(micros)); }

// The evidence ring as one JSON array of its (already compact JSON) entries, newest last.
std::string EncodeEvidence(const std::vector<std::string>& evidence);
// kCorrupt when `text` is not a JSON array.
core::Result<std::vector<std::string>> DecodeEvidence(std::string_view text);

// Labels as one JSON object of strings, {"tenant":"t1",...}, in their (sorted) order.
std::string EncodeLabels(const core::Labels& labels);
// kCorrupt when `text` is not such an object (what EncodeLabels writes, or any JSON object of
// strings).
core::Result<core::Labels> DecodeLabels(std::string_view text);

// kCorrupt for a name the schema does not allow.
core::Result<core::IncidentStatus> ParseIncidentStatus(std::string_view name);

}  // namespace quell::store
