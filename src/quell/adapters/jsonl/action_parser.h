#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

#include "quell/app/replay_input.h"
#include "quell/core/engine/input_limits.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::jsonl {

// Why a reader other than `quell replay --messages` refuses an action line.
extern const char kActionNeedsMessages[];

// Parses an operator action recorded among observations (read only by `quell replay --messages`):
//   {"at":"...","key":"db:1","action":"ack","by":"ana"}
//   {"at":"...","key":"db:1","action":"resolve","by":"ana","for":"1h"}
//   {"at":"...","key":"db:*","action":"silence","by":"ana","until":"...","reason":"deploy"}
//   {"at":"...","key":"*:*","action":"silence","match":"exact",...}
// `at`, `key`, `action` and `by` are required; `for` belongs to resolve only, `until` (required),
// `reason` and `match` (exact or glob, default glob) to silence only; other fields are ignored,
// as for observations. Not thread-safe.
class ActionParser {
 public:
  // `now` and `limits` bound `at` and `key` as ObservationParser bounds them.
  ActionParser(core::InputLimits limits, std::optional<core::WallTime> now);
  ~ActionParser();
  ActionParser(const ActionParser&) = delete;
  ActionParser& operator=(const ActionParser&) = delete;

  // Whether `record` is an action: a JSON object with a top-level "action" field. Cheap for
  // the observations around it (no parse unless the text holds "action"). `capacity` as in
  // ObservationParser::Parse; a record that is not valid JSON is not an action (the
  // observation parser then names the problem).
  bool IsAction(std::string_view record, size_t capacity);

  // Fills `out` (all but `where`) from `record`. kInvalidArgument names the field and the problem.
  core::Status Parse(std::string_view record, size_t capacity, app::OperatorAction& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quell::jsonl
