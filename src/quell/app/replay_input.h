#pragma once

#include <optional>
#include <string>

#include "quell/core/engine/observation.h"
#include "quell/core/engine/silence.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// An operator's command recorded in a replay's input, applied at `at` through OperatorCommands,
// as `quell incidents ack|resolve` and `quell silence add` would have applied it then.
struct OperatorAction {
  enum class Kind { kAck, kResolve, kSilence };
  Kind kind = Kind::kAck;
  core::WallTime at;
  std::string key;  // the incident's key; for a silence, the key or glob `match` says
  std::string by;
  std::optional<core::Duration> hold_for;  // resolve: bounds the hold (ResolveOptions)
  core::WallTime until;                    // silence: when it expires, later than `at`
  std::string reason;                      // silence
  std::string where;                       // where the input held it ("stdin:7"), for errors
  // silence: the key alone (kExact), or a glob (a silence line without "match")
  core::SilenceMatch match = core::SilenceMatch::kGlob;
};

// One record of a replay's input: an observation or, when `is_action`, an operator action.
struct ReplayItem {
  bool is_action = false;
  core::Observation observation;
  OperatorAction action;
};

// A replay's input, read once in order.
class ReplayInput {
 public:
  virtual ~ReplayInput() = default;
  // Fills `out` and returns true, or returns false at the end. kInvalidArgument for malformed
  // input, with a message naming where.
  virtual core::Result<bool> Next(ReplayItem& out) = 0;
};

}  // namespace quell::app
