#include "quell/adapters/text_output/text_table.h"

#include <algorithm>

#include "quell/core/text/terminal_text.h"

namespace quell::text_output {

std::string TimeText(const std::optional<core::WallTime>& t) {
  return t ? core::FormatRfc3339(*t) : "-";
}

void PrintTable(std::FILE* out, const std::vector<std::vector<std::string>>& raw_rows) {
  // Cells hold keys and errors from the watched systems: escaped before they reach a terminal.
  std::vector<std::vector<std::string>> rows;
  rows.reserve(raw_rows.size());
  for (const auto& raw : raw_rows) {
    auto& row = rows.emplace_back();
    row.reserve(raw.size());
    for (const std::string& cell : raw) row.push_back(core::EscapeForTerminal(cell));
  }
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(widths[i] - row[i].size() + 2, ' ');
    }
    line += '\n';
    std::fputs(line.c_str(), out);
  }
}

}  // namespace quell::text_output
