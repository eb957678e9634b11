#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "quell/core/engine/incident.h"
#include "quell/core/engine/silence.h"
#include "quell/core/ports/outbox_row.h"

namespace quell::cli {

enum class ListFormat { kTable, kJsonl };

// One JSON object per line; times are RFC 3339 or null. Field names are a stable contract.
std::string IncidentJson(const core::Incident& incident);
std::string OutboxJson(const core::OutboxRow& row);
std::string SilenceJson(const core::Silence& silence);

// Aligned columns for people, with a header row; "-" for absent values.
void PrintTable(std::FILE* out, const std::vector<std::vector<std::string>>& rows);

}  // namespace quell::cli
