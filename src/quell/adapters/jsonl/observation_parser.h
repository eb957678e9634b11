#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "quell/core/observation.h"
#include "quell/core/result.h"

namespace quell::jsonl {

// Parses one observation per JSON Lines record:
//   {"at":"2026-12-02T09:00:00Z","key":"...","unhealthy":true|false|null,
//    "condition":"...","evidence":{...}}
// `at`, `key` and `unhealthy` are required; `condition` and `evidence` are optional; other
// fields are ignored so that producers can add their own. Not thread-safe: one per thread.
class ObservationParser {
 public:
  // simdjson reads up to this many bytes past a record's end (never acting on them).
  static const size_t kPadding;

  ObservationParser();
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
