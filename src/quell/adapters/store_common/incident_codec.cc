#include "quell/adapters/store_common/incident_codec.h"

#include <nlohmann/json.hpp>

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
  std::vector<std::string> out;
  if (text.empty() || text == "[]") return out;
  try {
    auto parsed = nlohmann::ordered_json::parse(text);
    if (!parsed.is_array()) {
      return core::MakeError(core::ErrorCode::kCorrupt, "recent_evidence is not a JSON array");
    }
    for (const auto& entry : parsed) out.push_back(entry.dump());
  } catch (const nlohmann::json::exception& e) {
    return core::MakeError(core::ErrorCode::kCorrupt,
                           std::string("recent_evidence is not valid JSON: ") + e.what());
  }
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
