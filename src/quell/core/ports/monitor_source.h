#pragma once

#include "quell/core/conditions/monitor_condition.h"

namespace quell::core {

// Reads the state of a monitoring system's monitors (Datadog's). Implementations retry
// transient failures within their own budget; what they return is final for this poll.
class MonitorSource {
 public:
  virtual ~MonitorSource() = default;
  // Every group of every monitor `query` selects. Never an error: a failed walk is a listing
  // with complete=false and the error; kCorrupt in it when an answer changed shape.
  virtual MonitorListing List(const MonitorQuery& query) = 0;
};

}  // namespace quell::core
