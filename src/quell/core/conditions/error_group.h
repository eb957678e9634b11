#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/engine/labels.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// One error group as a source listed it, under quell's canonical field names (the source
// adapter maps the remote names and aliases). `fields` holds every other scalar field as text,
// so a key template can name fields quell does not know; `tags` are the group's tags.
struct ErrorGroup {
  std::string id;
  std::string title;
  std::string message;
  std::string level;
  bool resolved = false;
  uint64_t count = 0;
  std::optional<WallTime> first_seen;
  std::optional<WallTime> last_seen;
  Labels fields;
  Labels tags;
};

// A listing walk. `complete` is true only when every page was read and parsed; otherwise
// `error` says what stopped it and `groups` holds what the pages before it gave.
struct GroupListing {
  std::vector<ErrorGroup> groups;
  bool complete = false;
  uint32_t pages = 0;
  Error error;
};

// One recent event of a group, for enrichment; text not yet redacted.
struct GroupEvent {
  std::string event_id;
  std::optional<WallTime> at;
  std::string message;
  std::string exception;
};

struct GroupDetail {
  ErrorGroup group;
  std::vector<GroupEvent> events;  // newest first
};

}  // namespace quell::core
