#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

#include "quell/core/engine/input_limits.h"
#include "quell/core/engine/observation.h"
#include "quell/core/redact/redact.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::jsonl {

// Parses one observation per JSON Lines record:
//   {"at":"2026-12-02T09:00:00Z","key":"...","unhealthy":true|false|null,
//    "condition":"...","evidence":{...},"labels":{"tenant":"t1",...},"upstream_count":12}
// `at`, `key` and `unhealthy` are required; `condition`, `evidence`, `labels` (an object of
// strings: what the incident is about) and `upstream_count` (the source's own event count) are
// optional; other
// fields are ignored so that producers can add their own. A record past the limits is refused
// (naming the limit), and evidence passes the same redaction as poll evidence: every string
// value through core::Redact, the value of a secret-looking name (core::LooksSecretKey) replaced
// by "[secret]"; label values pass core::RedactLabels ("[secret]" for a credential, a
// pseudonym for personal data). Not thread-safe: one per thread.
struct ObservationParserOptions {
  core::InputLimits limits;
  // Read once by the caller; `at` later than now + limits.max_future_skew is refused. Without
  // it no line is too far ahead.
  std::optional<core::WallTime> now;
  core::RedactOptions redact;
  // Unset for pushed observations, whose condition's key template can render a missing `key`
  // from the labels: a record without one is then read with `key` empty.
  bool require_key = true;
};

class ObservationParser {
 public:
  // simdjson reads up to this many bytes past a record's end (never acting on them).
  static const size_t kPadding;

  explicit ObservationParser(ObservationParserOptions options = {});
  ~ObservationParser();
  ObservationParser(const ObservationParser&) = delete;
  ObservationParser& operator=(const ObservationParser&) = delete;

  // Fills `out` (reusing its buffers) from `record`. `capacity` counts the readable bytes from
  // record.data(); it must be at least record.size() + kPadding. kInvalidArgument names the
  // field and the problem.
  core::Status Parse(std::string_view record, size_t capacity, core::Observation& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quell::jsonl
