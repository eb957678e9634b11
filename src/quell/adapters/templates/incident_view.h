#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/result.h"

namespace quell::templates {

// The fields a template sees, read from an outbox payload (the JSON incident snapshot).
struct IncidentView {
  std::string key;
  std::string condition;
  std::string severity;
  std::string status;      // "open" or "resolved"
  std::string transition;  // "open", "renotify" or "resolve"
  uint64_t generation = 0;
  uint64_t version = 0;
  std::string opened_at;  // RFC 3339, or empty
  std::string first_seen_at;
  std::string last_seen_at;
  std::string resolved_at;
  uint64_t event_count = 0;
  struct Example {
    std::string text;  // the evidence's title (or message), one line
    std::string json;  // the whole evidence object, compact
  };
  std::vector<Example> examples;  // the most recent first
  std::string link;               // empty without a base URL
  // An open announced when its condition left shadow mode: true, with how long it had been
  // open then ("2h 13m") and since when ("2026-12-02 09:00 UTC").
  bool opened_in_shadow = false;
  std::string open_for;
  std::string open_since;
};

struct ViewOptions {
  std::string link_base_url;  // the link is this + the percent-encoded key; empty: no link
  std::string default_severity = "error";
  std::map<std::string, std::string, std::less<>> condition_severity;  // by condition name
  size_t max_examples = 3;
  size_t max_example_chars = 200;
};

// Reads `payload`; kInvalidArgument when it is not a JSON object with a string "key". The
// severity is condition_severity[condition], else the payload's "severity", else the default.
// "45s", "13m", "2h 13m", "3d 4h": the two largest units, for a person reading a message.
std::string HumanDuration(int64_t seconds);

core::Result<IncidentView> ParseIncidentView(std::string_view payload, const ViewOptions& options);

// The names a template may use: the view's fields, the "examples" list with "text" and "json",
// and the helpers is_open, is_renotify, is_resolve, has_examples, transition_label,
// severity_upper; opened_in_shadow, open_for and open_since for a late open.
const std::vector<std::string>& ViewFieldNames();

}  // namespace quell::templates
