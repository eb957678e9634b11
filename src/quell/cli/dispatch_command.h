#pragma once

#include <cstdio>
#include <string>

#include "quell/core/ports/clock.h"

namespace quell::cli {

struct DispatchCommandOptions {
  std::string config_path = "quell.yaml";
  std::string store_url;  // overrides the config's store when set
  std::string owner;      // the lease owner id; default host:pid:random
  bool once = false;      // deliver what is due now, then exit
};

// `quell dispatch -c FILE`: delivers the outbox through the configured channels. With --once
// it claims until nothing more is due now and exits; otherwise it runs until SIGINT or SIGTERM,
// finishing the batch in hand (a row it could not record is left to its lease). One summary
// line on `err` per batch that did something. Returns 0, 1 when a store error or dead row
// occurred in --once mode, 2 for a config that cannot run.
int RunDispatch(const DispatchCommandOptions& options, core::Clock& clock, std::FILE* err);

}  // namespace quell::cli
