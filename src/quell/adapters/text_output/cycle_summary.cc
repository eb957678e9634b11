#include "quell/adapters/text_output/cycle_summary.h"

namespace quell::text_output {

std::string ConditionSummary(const app::ConditionOutcome& c) {
  std::string line = c.condition + " (" + c.source + "): ";
  if (!c.applied) return line + "not applied: " + c.apply_error;
  const auto& by = c.summary.poll.by_decision;
  const auto n = [&by](core::DecisionKind kind) {
    return std::to_string(by[static_cast<size_t>(kind)]);
  };
  line += std::to_string(c.observations) + " observations, " + n(core::DecisionKind::kNotify) +
          " notify, " + n(core::DecisionKind::kResolve) + " resolve, " +
          n(core::DecisionKind::kUpdateOnly) + " update_only, " +
          n(core::DecisionKind::kWaitForHealth) + " wait_for_health, " +
          n(core::DecisionKind::kUnknown) + " unknown; " +
          std::to_string(c.summary.poll.outbox_rows) + " outbox rows";
  if (c.enriched + c.enrich_failed > 0) {
    line += "; " + std::to_string(c.enriched) + " enriched";
    if (c.enrich_failed > 0) line += ", " + std::to_string(c.enrich_failed) + " detail failed";
  }
  if (!c.source_ok) line += "\n  source failed, open incidents held as unknown: " + c.source_error;
  return line;
}

}  // namespace quell::text_output
