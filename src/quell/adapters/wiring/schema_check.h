#pragma once

#include <cstddef>
#include <cstdio>

#include "quell/adapters/config/config.h"
#include "quell/adapters/wiring/poll_wiring.h"

namespace quell::wiring {

// `quell schema check`: the live Infrai surface against what the config's conditions read, and
// each Prometheus condition's query sent once (refused, keeping no series, or missing a label
// its key reads). Prints each finding and a verdict per source to `out`; returns the number of
// problems (warnings are printed, not counted).
size_t CheckSchema(PollWiring& poll, const config::Config& config, std::FILE* out);

}  // namespace quell::wiring
