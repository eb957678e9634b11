#include "quell/app/apply_options_for.h"

namespace quell::app {

ApplyOptions ApplyOptionsFor(const core::ConditionCommon& common, const PollerOptions& options,
                             const std::vector<core::MaintenanceWindow>& maintenance) {
  ApplyOptions apply;
  apply.policy = common.policy;
  apply.channels = common.channels;
  apply.escalation = common.escalation;
  apply.routes = common.routes;
  apply.inhibited_by = common.inhibited_by;
  apply.severity_of = options.severity_of;
  apply.shadow = common.shadow;
  apply.tenant_budget_per_hour = options.tenant_budget_per_hour;
  apply.grouping = options.grouping;
  apply.maintenance = maintenance;
  apply.zones = options.zones;
  apply.chunk_observations = options.chunk_observations;
  apply.decision_retention = options.decision_retention;
  return apply;
}

}  // namespace quell::app
