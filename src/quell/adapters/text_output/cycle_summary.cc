#include "quell/adapters/text_output/cycle_summary.h"

namespace quell::text_output {

std::string ConditionSummary(const app::ConditionOutcome& outcome) {
  std::string line = outcome.condition + " (" + outcome.source + "): ";
  if (!outcome.applied) return line + "not applied: " + outcome.apply_error;
  const auto& by = outcome.summary.poll.by_decision;
  const auto n = [&by](core::DecisionKind kind) {
    return std::to_string(by[static_cast<size_t>(kind)]);
  };
  line += std::to_string(outcome.observations) + " observations, " +
          n(core::DecisionKind::kNotify) + " notify, " + n(core::DecisionKind::kResolve) +
          " resolve, " + n(core::DecisionKind::kUpdateOnly) + " update_only, " +
          n(core::DecisionKind::kWaitForHealth) + " wait_for_health, " +
          n(core::DecisionKind::kUnknown) + " unknown; " +
          std::to_string(outcome.summary.poll.outbox_rows) + " outbox rows";
  if (outcome.enriched + outcome.enrich_failed > 0) {
    line += "; " + std::to_string(outcome.enriched) + " enriched";
    if (outcome.enrich_failed > 0)
      line += ", " + std::to_string(outcome.enrich_failed) + " detail failed";
  }
  if (!outcome.source_ok)
    line += "\n  source failed, open incidents held as unknown: " + outcome.source_error;
  return line;
}

}  // namespace quell::text_output
