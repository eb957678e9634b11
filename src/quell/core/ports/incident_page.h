#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quell/core/engine/incident.h"

namespace quell::core {

enum class IncidentStatusFilter : uint8_t { kAll, kOpen, kResolved };

// kKey: byte order of the key. kTriage: open incidents first, newest opened_at first; then
// resolved ones, newest resolved_at first; then the rest (never opened); ties by key.
enum class IncidentOrder : uint8_t { kKey, kTriage };

// What one page of the incident list holds. Every filter given must match.
struct IncidentPageQuery {
  IncidentStatusFilter status = IncidentStatusFilter::kAll;
  std::string key;        // exact; empty: every key (one incident's page row: its detail)
  std::string condition;  // exact; empty: every condition
  // Lower-case ASCII; a substring of the lower-cased key, condition or one label written
  // name=value. Empty: no text filter.
  std::string text;
  std::optional<std::pair<std::string, std::string>> label;  // has label name with this value
  IncidentOrder order = IncidentOrder::kKey;
  size_t offset = 0;
  std::optional<size_t> limit;  // none: every row after offset
};

struct ListedIncident {
  Incident incident;
  // The "level" of the newest evidence item when it is a JSON object with a string level.
  std::string newest_level;
  // Outbox rows of the incident's current generation that went out: sent, or grouped and taken
  // by a group message that was sent.
  uint64_t notifications_sent = 0;
};

struct IncidentPage {
  uint64_t total = 0;  // rows matching the filters, before offset and limit
  std::vector<ListedIncident> incidents;
};

}  // namespace quell::core
