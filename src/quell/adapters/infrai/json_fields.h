#pragma once

#include <simdjson.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "quell/core/conditions/error_group.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::infrai {

// Defensive readers over a simdjson object for fields whose names and types Infrai never
// documented: each takes the candidate names in order and accepts the plausible encodings.

// The first candidate present (null counts as absent), or nullopt.
std::optional<simdjson::dom::element> FindField(simdjson::dom::object object,
                                                std::span<const std::string> names);

// A string, or a number written as text (ids are sometimes numeric).
std::optional<std::string> AsText(simdjson::dom::element value);

// An RFC 3339 string, or a Unix time in seconds (or milliseconds when it is that large), before
// the year 10000.
core::Result<core::WallTime> AsTime(simdjson::dom::element value);

// A non-negative integer, or one written as a string.
core::Result<uint64_t> AsCount(simdjson::dom::element value);

// A number, or a number written as a string ("NaN", "+Inf" included).
core::Result<double> AsNumber(simdjson::dom::element value);

// An object of scalars into sorted labels; kCorrupt when it is not an object.
core::Result<core::Labels> AsLabels(simdjson::dom::element value);

}  // namespace quell::infrai
