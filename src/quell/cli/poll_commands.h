#pragma once

#include <cstdio>
#include <string>

#include "quell/core/ports/clock.h"

namespace quell::cli {

struct PollCommandOptions {
  std::string config_path = "quell.yaml";
  std::string store_url;  // overrides the config's store when set
};

// `quell poll-once -c FILE`: one complete cycle (poll every source, evaluate, persist, write
// the outbox). Prints one decision line per observation to `out` after each condition
// commits, and one summary line per condition to `err`. Returns 0 when every source answered
// in full and every condition committed, 1 when a source failed (its open incidents were
// observed as unknown) or a store write failed, 2 for a config that cannot run.
int RunPollOnce(const PollCommandOptions& options, core::Clock& clock, std::FILE* out,
                std::FILE* err);

// `quell schema check -c FILE`: checks the live Infrai surface against what the config needs,
// one line per problem on `out`. Returns 0 when there is none, 1 when there are, 2 for a config
// that cannot run.
int RunSchemaCheck(const PollCommandOptions& options, core::Clock& clock, std::FILE* out,
                   std::FILE* err);

}  // namespace quell::cli
