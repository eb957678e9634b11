#pragma once

#include "quell/core/conditions/shadow_report.h"
#include "quell/core/ports/shadow_report_store.h"
#include "quell/core/result.h"

namespace quell::app {

// `quell shadow-report`'s reads: the decision counts and the key/group rows since `cutoff`,
// then core::ComputeShadowReport over them. The store's error when either read fails.
core::Result<core::ShadowReport> QueryShadowReport(core::ShadowReportStore& reads,
                                                   core::WallTime cutoff,
                                                   const core::ShadowReportOptions& options);

}  // namespace quell::app
