#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "quell/core/text/time.h"

namespace quell::cli {

struct ShadowReportCommandOptions {
  std::string config_path;  // -c: the store comes from the config unless --store is given
  std::string store_url;    // --store; with neither, sqlite:quell.db
  std::string since = "24h";
  std::string format = "table";  // table | json
  size_t top = 10;
};

// `quell shadow-report`: the decision counts and the key/group mismatches since now - since.
// 0 on success; 1 for a store error; 2 for a bad flag, config or store URL.
int RunShadowReport(const ShadowReportCommandOptions& options, core::WallTime now, std::FILE* out,
                    std::FILE* err);

}  // namespace quell::cli
