#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "quell/adapters/jsonl/observation_parser.h"
#include "quell/core/engine/observation.h"
#include "quell/core/result.h"

namespace quell::inputs {

struct ObservationBodyOptions {
  // The record format, its limits and redaction; `require_key` is for the caller to choose.
  jsonl::ObservationParserOptions parser;
  size_t max_observations = 5000;  // records per request
};

// The observations of a POST /v1/observations body in quell's observation record format
// (jsonl/observation_parser.h): one JSON object, a JSON array of objects, or JSON Lines (one
// object per line, blank lines skipped). kInvalidArgument names the record:
// "observations[3]: field \"at\": ...". Any input ends in a value or that error.
core::Result<std::vector<core::Observation>> ParseObservationBody(
    std::string_view body, const ObservationBodyOptions& options);

}  // namespace quell::inputs
