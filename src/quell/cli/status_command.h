#pragma once

#include <cstdio>
#include <string>

#include "quell/core/text/time.h"

namespace quell::cli {

struct StatusCommandOptions {
  std::string config_path;       // -c: the store, and the poll groups the config polls
  std::string store_url;         // --store (wins over -c's); with neither, sqlite:quell.db
  std::string format = "table";  // table | json
};

// `quell status`: each poll group with its lease holder, fencing token and expiry, and every
// instance seen (docs/operations.md, "Several instances"). 0 on success; 1 for a store error;
// 2 for a bad flag, config or store URL.
int RunStatus(const StatusCommandOptions& options, core::WallTime now, std::FILE* out,
              std::FILE* err);

}  // namespace quell::cli
