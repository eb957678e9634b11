#pragma once

#include <cstdio>
#include <string>

#include "quell/app/cluster_status.h"

namespace quell::text_output {

// `quell status --format json` and GET /v1/status (docs/operations.md, "Several instances"):
// {"now", "instance": id | null, "poll_groups": [{"lease", "conditions", "held", "holder",
// "token", "expires_at", "expired", "acquired_at", "renewed_at", "polled_at"}],
// "instances": [{"id", "host", "pid", "version", "started_at", "last_seen_at", "live"}]}.
// A lease never taken has holder null, token 0 and null times; a field's meaning never changes.
std::string ClusterStatusJson(const app::ClusterStatus& status);

// The same for people: a table of poll groups, then one of instances.
void PrintClusterStatus(std::FILE* out, const app::ClusterStatus& status);

}  // namespace quell::text_output
