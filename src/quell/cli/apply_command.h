#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "quell/core/engine/policy.h"
#include "quell/core/ports/clock.h"
#include "quell/core/text/time.h"

namespace quell::cli {

struct ApplyCommandOptions {
  std::string store_url;    // --store; wins over the config's
  std::string config_path;  // -c: the store is the config's `store:`; neither: sqlite:quell.db
  core::Policy policy;
  bool skip_invalid = false;
  std::string poll_id;  // empty: generated, and the poll is recorded only if it changed anything
  size_t chunk_observations = 5000;
  std::optional<core::Duration> decision_retention;
};

// `quell apply`: replay's input and output, durable. Reads observation JSON Lines from `in_fd`,
// applies them as one poll in one transaction, and only after the commit writes one decision
// line per observation to `out`. Returns 0; 1 for malformed input or a store error (nothing is
// applied then); 2 for a bad --store URL or config. It creates a SQLite store that is not there.
int RunApply(const ApplyCommandOptions& options, core::Clock& clock, int in_fd, std::FILE* out,
             std::FILE* err);

}  // namespace quell::cli
