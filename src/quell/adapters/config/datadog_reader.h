#pragma once

#include <filesystem>

#include "quell/adapters/config/config.h"
#include "quell/adapters/config/yaml_reader.h"

namespace quell::config {

// The `datadog:` section but its HTTP settings and source_failures_to_open (the loader's, as for
// every source): `site` (one of Datadog's: datadoghq.com, datadoghq.eu, us3.datadoghq.com,
// us5.datadoghq.com, ap1.datadoghq.com), `base_url` overriding the site's API root, the keys by
// reference (api_key_env, default DD_API_KEY, or api_key_file; app_key_env, default DD_APP_KEY,
// or app_key_file), page_size and max_pages. Does not Finish `section`.
void ReadDatadog(MapReader& section, const std::filesystem::path& config_dir,
                 DatadogSettings& datadog);

// `type: datadog_monitors`: `monitor_tags` and a key over monitor_id, monitor_name, group,
// status and tags.<name>. Refused, at `type`, without a `datadog:` section before it.
void ReadDatadogCondition(MapReader& item, core::ConditionCommon common, Config& config);

}  // namespace quell::config
