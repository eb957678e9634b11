#pragma once

#include <functional>
#include <map>
#include <string>

#include "quell/adapters/config/config.h"
#include "quell/app/source_health_apply.h"

namespace quell::wiring {

// Each source `config` polls (by the poller's name, as GET /v1/sources lists it) and each push
// condition's sender (core::PushSenderName), with what its own incident needs: the threshold
// (the source section's source_failures_to_open, else the top-level one), the cooldown of
// `defaults:`, shadow when every condition reading it is in shadow mode, and its channels:
// meta_channels when set, else every channel a condition reading it pages at once (its
// `channels`, its routes', and its escalation tiers due at 0s), in config order, each once.
std::map<std::string, app::SourceHealthTarget, std::less<>> SourceHealthTargets(
    const config::Config& config);

}  // namespace quell::wiring
