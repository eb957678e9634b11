#include "quell/adapters/store_common/incident_codec.h"

namespace quell::store {

std::string EncodeEvidence(const std::vector<std::string>& evidence) {
  std::string out = "[";
  for (size_t i = 0; i < evidence.size(); ++i) {
    if (i > 0) out += ',';
    out += evidence[i];
  }
  out += ']';
  return out;
}

core::Result<std::vector<std::string>> DecodeEvidence(std::string_view text) {
  // Every entry was stored as compact JSON, so splitting the array at its top-level commas is
  // enough; a full JSON parse of every loaded incident was the largest cost of an unchanged key.
  std::vector<std::string> out;
  auto corrupt = [] {
    return core::MakeError(core::ErrorCode::kCorrupt, "recent_evidence is not a JSON array");
  };
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return corrupt();
  if (text.size() == 2) return out;
  int depth = 0;
  bool in_string = false;
  size_t start = 1;
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth < 0) return corrupt();
    } else if (c == ',' && depth == 0) {
      if (i == start) return corrupt();
      out.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (in_string || depth != 0 || start >= text.size() - 1) return corrupt();
  out.emplace_back(text.substr(start, text.size() - 1 - start));
  return out;
}

core::Result<core::IncidentStatus> ParseIncidentStatus(std::string_view name) {
  for (auto status : {core::IncidentStatus::kNone, core::IncidentStatus::kOpen,
                      core::IncidentStatus::kResolved}) {
    if (name == core::IncidentStatusName(status)) return status;
  }
  return core::MakeError(core::ErrorCode::kCorrupt,
                         "unknown incident status \"" + std::string(name) + "\"");
}

}  // namespace quell::store
