#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/text/json_escape.h"

namespace quell::core {

// Name-value pairs sorted by name: an error group's tags, a metric series' labels, and what an
// incident is about (the fields its key template read, or the labels a replayed observation
// carried). Grouping, routing and messages read an incident's labels; the engine only carries
// them.
using Labels = std::vector<std::pair<std::string, std::string>>;

// The value of the label named `name` (the first, should there be two); nullopt when absent.
inline std::optional<std::string_view> FindLabel(const Labels& labels, std::string_view name) {
  for (const auto& [key, value] : labels) {
    if (key == name) return std::string_view{value};
  }
  return std::nullopt;
}

// Appends `labels` as one JSON object of strings, {"name":"value",...}, in their order: how the
// store, the outbox payload and the operator listings all write them.
inline void AppendLabelsJson(std::string& out, const Labels& labels) {
  out += '{';
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, labels[i].first);
    out += ':';
    AppendJsonString(out, labels[i].second);
  }
  out += '}';
}

}  // namespace quell::core
