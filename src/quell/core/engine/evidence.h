#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "quell/core/redact/redact.h"

namespace quell::core {

using EvidenceFields = std::vector<std::pair<std::string, std::string>>;

// What an incident keeps of one error group, as parsed from the source and not yet redacted.
struct EvidenceInput {
  // In the order they are shown: title, level, count, last_seen, message, exception, event_id.
  // "tags" and "truncated" are reserved for the output and skipped here.
  EvidenceFields fields;
  EvidenceFields tags;
};

struct EvidenceOptions {
  size_t max_bytes = 2048;  // of the whole JSON text, at least 64
  // Lines kept of each value before redaction: stack traces are long and only their top is
  // worth keeping; the rest becomes "…[+N lines]".
  size_t max_lines = 10;
};

// One compact JSON object, {"title":"...",...,"tags":{"env":"prod"}}, with every key and value
// redacted (see Redact) and every value of a secret-looking field or tag name (LooksSecretKey)
// replaced by "[secret]". Fields that would pass max_bytes are dropped from the end (the first
// of them shortened when there is room) and the object then ends with "truncated":true.
std::string BuildEvidence(const EvidenceInput& input, const RedactOptions& redact,
                          const EvidenceOptions& options = {});
// The same, adding what was redacted to `stats`.
std::string BuildEvidence(const EvidenceInput& input, const RedactOptions& redact,
                          const EvidenceOptions& options, RedactStats& stats);

}  // namespace quell::core
