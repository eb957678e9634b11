#include "quell/adapters/wiring/poller_options_for.h"

#include "quell/adapters/wiring/route_lookup.h"
#include "quell/adapters/zones/date_zone_rules.h"
#include "quell/app/group_evidence.h"
#include "quell/app/one_off_maintenance.h"

namespace quell::wiring {

app::PollerOptions PollerOptionsFor(const config::Config& config, core::OperatorStore* operators) {
  app::PollerOptions poller;
  poller.max_enrich = config.infrai.max_enrich;
  poller.enrich_concurrency = config.infrai.enrich_concurrency;
  // Without Infrai, the Sentry section's bound is the detail fetches' too.
  if (config.error_conditions.empty() && !config.sentry_conditions.empty()) {
    poller.max_enrich = config.sentry.max_enrich;
  }
  poller.tenant_budget_per_hour = config.dispatch.budget.per_hour;
  poller.severity_of = SeverityFromConfig(config);
  poller.maintenance = config.maintenance;
  poller.zones = &zones::SystemZoneRules();
  if (operators != nullptr) {
    poller.one_off_maintenance =
        [operators](core::WallTime now) -> core::Result<std::vector<core::MaintenanceWindow>> {
      auto windows = operators->ListOneOffWindows(now - app::kOneOffListedFor);
      if (!windows) return windows.error();
      std::vector<core::MaintenanceWindow> out;
      for (const core::OneOffWindow& window : *windows) {
        out.push_back(app::AsMaintenanceWindow(window));
      }
      return out;
    };
  }
  for (const config::ChannelConfig& channel : config.channels) {
    if (channel.delivery.grouping) {
      poller.grouping.emplace(channel.name, *channel.delivery.grouping);
    }
  }
  if (config.retention.decisions.count() > 0) {
    poller.decision_retention = config.retention.decisions;
  }
  if (config.retention.key_groups.count() > 0) {
    poller.key_group_retention = config.retention.key_groups;
  }
  poller.group_evidence = [](const core::ErrorGroup& group, const core::GroupDetail* detail) {
    return app::GroupEvidence(group, detail, core::RedactOptions{});
  };
  poller.group_evidence_reuse =
      app::GroupEvidenceReuse{.source = app::GroupEvidenceSource,
                              .fingerprint = [salt = app::EvidenceRulesSalt(core::RedactOptions{})](
                                                 const core::ErrorGroup& group) {
                                return app::GroupEvidenceFingerprint(group, salt);
                              }};
  return poller;
}

}  // namespace quell::wiring
