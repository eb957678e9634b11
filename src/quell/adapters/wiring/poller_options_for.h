#pragma once

#include "quell/adapters/config/config.h"
#include "quell/app/poller.h"
#include "quell/core/ports/operator_store.h"

namespace quell::wiring {

// The config-wide settings every apply of the config's observations uses, whether the poller's
// cycle or an alert pushed over HTTP brings them (app::ApplyOptionsFor reads them): budgets,
// grouping, severities, configured maintenance, retention and the group evidence builder.
// With `operators`, the operators' one-off maintenance windows are read at each use; it must
// outlive the options.
app::PollerOptions PollerOptionsFor(const config::Config& config,
                                    core::OperatorStore* operators = nullptr);

}  // namespace quell::wiring
