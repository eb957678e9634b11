#include "quell/app/shadow_report_query.h"

namespace quell::app {

core::Result<core::ShadowReport> QueryShadowReport(core::ShadowReportStore& reads,
                                                   core::WallTime cutoff,
                                                   const core::ShadowReportOptions& options) {
  auto decisions = reads.CountDecisionsSince(cutoff);
  if (!decisions) return decisions.error();
  auto rows = reads.KeyGroupsSince(cutoff);
  if (!rows) return rows.error();
  return core::ComputeShadowReport(cutoff, *decisions, *rows, options);
}

}  // namespace quell::app
