#include "quell/adapters/text_output/shadow_report_text.h"

#include <vector>

#include "quell/adapters/text_output/text_table.h"
#include "quell/core/engine/decision.h"
#include "quell/core/text/json_escape.h"

namespace quell::text_output {
namespace {

uint64_t Count(const core::ShadowReport& r, core::DecisionKind kind) {
  return r.decisions[static_cast<size_t>(kind)];
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out.push_back(',');
    out.append(item);
  }
  return out;
}

void AppendJsonList(std::string& out, const std::vector<std::string>& items) {
  out.push_back('[');
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out.push_back(',');
    core::AppendJsonString(out, items[i]);
  }
  out.push_back(']');
}

}  // namespace

std::string ShadowReportJson(const core::ShadowReport& r) {
  std::string out = "{\"since\":";
  core::AppendJsonString(out, core::FormatRfc3339(r.since));
  out.append(",\"decisions\":{");
  for (size_t k = 0; k < r.decisions.size(); ++k) {
    if (k > 0) out.push_back(',');
    core::AppendJsonString(out, core::DecisionName(static_cast<core::DecisionKind>(k)));
    out.append(":").append(std::to_string(r.decisions[k]));
  }
  out.append("},\"error_groups\":").append(std::to_string(r.error_groups));
  out.append(",\"keys\":").append(std::to_string(r.keys));
  out.append(",\"merged_keys\":").append(std::to_string(r.merged_keys));
  out.append(",\"split_groups\":").append(std::to_string(r.split_groups));
  out.append(",\"merged\":[");
  for (size_t i = 0; i < r.merged.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.append("{\"key\":");
    core::AppendJsonString(out, r.merged[i].key);
    out.append(",\"groups\":").append(std::to_string(r.merged[i].groups));
    out.append(",\"sample_groups\":");
    AppendJsonList(out, r.merged[i].sample_groups);
    out.push_back('}');
  }
  out.append("],\"split\":[");
  for (size_t i = 0; i < r.split.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.append("{\"group_id\":");
    core::AppendJsonString(out, r.split[i].group_id);
    out.append(",\"keys\":").append(std::to_string(r.split[i].keys));
    out.append(",\"sample_keys\":");
    AppendJsonList(out, r.split[i].sample_keys);
    out.push_back('}');
  }
  out.append("]}");
  return out;
}

void PrintShadowReport(std::FILE* out, const core::ShadowReport& r, const std::string& since) {
  using core::DecisionKind;
  std::fprintf(out, "since %s (%s)\n", core::FormatRfc3339(r.since).c_str(), since.c_str());
  std::fprintf(out,
               "decisions: notify %llu, update_only %llu, resolve %llu"
               " (wait_for_health %llu, unknown %llu)\n",
               static_cast<unsigned long long>(Count(r, DecisionKind::kNotify)),
               static_cast<unsigned long long>(Count(r, DecisionKind::kUpdateOnly)),
               static_cast<unsigned long long>(Count(r, DecisionKind::kResolve)),
               static_cast<unsigned long long>(Count(r, DecisionKind::kWaitForHealth)),
               static_cast<unsigned long long>(Count(r, DecisionKind::kUnknown)));
  std::fprintf(out, "error groups seen failing: %llu, under %llu keys\n",
               static_cast<unsigned long long>(r.error_groups),
               static_cast<unsigned long long>(r.keys));
  std::fprintf(out, "\nkeys merging several error groups: %llu\n",
               static_cast<unsigned long long>(r.merged_keys));
  if (!r.merged.empty()) {
    std::vector<std::vector<std::string>> rows = {{"KEY", "GROUPS", "SOME_GROUPS"}};
    for (const core::MergedKey& m : r.merged) {
      rows.push_back({m.key, std::to_string(m.groups), Joined(m.sample_groups)});
    }
    PrintTable(out, rows);
  }
  std::fprintf(out, "\nerror groups split over several keys: %llu\n",
               static_cast<unsigned long long>(r.split_groups));
  if (!r.split.empty()) {
    std::vector<std::vector<std::string>> rows = {{"GROUP", "KEYS", "SOME_KEYS"}};
    for (const core::SplitGroup& s : r.split) {
      rows.push_back({s.group_id, std::to_string(s.keys), Joined(s.sample_keys)});
    }
    PrintTable(out, rows);
  }
}

}  // namespace quell::text_output
