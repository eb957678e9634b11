#pragma once

#include <filesystem>

#include "quell/adapters/config/config.h"
#include "quell/adapters/config/yaml_reader.h"

namespace quell::config {

// `sentry: {base_url, org, token_env | token_file, max_pages, max_enrich}`; the loader reads the
// section's HTTP settings and source_failures_to_open as for every source, and finishes it.
void ReadSentry(MapReader& section, const std::filesystem::path& dir, Config& config);

// `type: sentry_issues`: project (required), query (default "is:unresolved"), key (default
// "{project}:{id}", over id, short_id, project, level, title, culprit and tags.<name>), levels
// and tags filters as an error_groups condition has. Refused without a `sentry:` section.
void ReadSentryCondition(MapReader& item, core::ConditionCommon common, Config& config);

}  // namespace quell::config
