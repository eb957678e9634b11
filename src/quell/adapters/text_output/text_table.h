#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "quell/core/text/time.h"

namespace quell::text_output {

// How a listing command prints: aligned columns for people, or one JSON object per line.
enum class ListFormat { kTable, kJsonl };

// Aligned columns for people, with a header row. Each cell is escaped for a terminal first:
// cells hold keys and errors from the watched systems.
void PrintTable(std::FILE* out, const std::vector<std::vector<std::string>>& rows);

// A table cell's time: RFC 3339, or "-" when absent.
std::string TimeText(const std::optional<core::WallTime>& t);

}  // namespace quell::text_output
