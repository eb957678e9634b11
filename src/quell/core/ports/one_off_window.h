#pragma once

#include <cstdint>
#include <string>

#include "quell/core/engine/labels.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A maintenance window an operator added for one span [starts_at, ends_at), beside the
// configured recurring ones; expiring it moves ends_at to the expiry (the row stays, so the
// poll that finds it closed announces the opens it muted).
struct OneOffWindow {
  uint64_t id = 0;
  std::string name;
  std::string keys = "*";  // a key glob, as for silences
  Labels labels;           // each must be on the incident with this value
  WallTime starts_at;
  WallTime ends_at;
  std::string reason;
  std::string created_by;
  WallTime created_at;

  bool ActiveAt(WallTime at) const { return starts_at <= at && at < ends_at; }
};

}  // namespace quell::core
