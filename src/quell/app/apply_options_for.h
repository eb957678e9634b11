#pragma once

#include <vector>

#include "quell/app/poll_applier.h"
#include "quell/app/poller.h"
#include "quell/core/conditions/condition.h"
#include "quell/core/delivery/maintenance_window.h"

namespace quell::app {

// How a condition's observations are applied, whoever brings them (the poller's cycle or an
// alert pushed over HTTP): its policy and routing from `common`, the config-wide settings from
// `options`, and `maintenance` (the configured windows and the operators' one-off windows in
// force). Shadow marks, source marks, key groups and the fence are the caller's.
ApplyOptions ApplyOptionsFor(const core::ConditionCommon& common, const PollerOptions& options,
                             const std::vector<core::MaintenanceWindow>& maintenance);

}  // namespace quell::app
