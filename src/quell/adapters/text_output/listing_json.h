#pragma once

#include <cstdint>
#include <string>

#include "quell/core/engine/incident.h"
#include "quell/core/engine/silence.h"
#include "quell/core/ports/outbox_row.h"

namespace quell::text_output {

// One JSON object per line; times are RFC 3339 or null. Field names are a stable contract.
std::string IncidentJson(const core::Incident& incident);
// IncidentJson with the list's two fields after the others: severity, notifications_sent.
std::string ListedIncidentJson(const core::Incident& incident, const std::string& severity,
                               uint64_t notifications_sent);
std::string OutboxJson(const core::OutboxRow& row);
std::string SilenceJson(const core::Silence& silence);

}  // namespace quell::text_output
