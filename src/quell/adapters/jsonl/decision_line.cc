#include "quell/adapters/jsonl/decision_line.h"

#include <charconv>

#include "quell/core/text/json_escape.h"

namespace quell::jsonl {
namespace {

void AppendUnsigned(std::string& out, uint64_t value) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  (void)ec;  // 24 bytes always hold a uint64_t
  out.append(buf, end);
}

}  // namespace

void AppendDecisionLine(std::string& out, const core::Observation& observation,
                        const core::Decision& decision) {
  out.append("{\"at\":\"");
  core::AppendRfc3339(out, observation.at);
  out.append("\",\"key\":");
  core::AppendJsonString(out, observation.key);
  out.append(",\"decision\":\"");
  out.append(core::DecisionName(decision.kind));
  out.push_back('"');
  if (decision.reason != core::Reason::kNone) {
    out.append(",\"reason\":\"");
    out.append(core::ReasonName(decision.reason));
    out.push_back('"');
  }
  out.append(",\"generation\":");
  AppendUnsigned(out, decision.generation);
  out.append(",\"version\":");
  AppendUnsigned(out, decision.version);
  out.append("}\n");
}

}  // namespace quell::jsonl
