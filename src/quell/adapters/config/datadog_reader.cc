#include "quell/adapters/config/datadog_reader.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "quell/adapters/config/secret_reader.h"
#include "quell/core/conditions/key_template.h"

namespace quell::config {
namespace {

// Datadog's sites as its docs name them, with the roots of their API and web app.
struct Site {
  std::string_view name;
  std::string_view api_url;
  std::string_view app_url;
};
constexpr std::array<Site, 5> kSites = {{
    {"datadoghq.com", "https://api.datadoghq.com", "https://app.datadoghq.com"},
    {"datadoghq.eu", "https://api.datadoghq.eu", "https://app.datadoghq.eu"},
    {"us3.datadoghq.com", "https://api.us3.datadoghq.com", "https://us3.datadoghq.com"},
    {"us5.datadoghq.com", "https://api.us5.datadoghq.com", "https://us5.datadoghq.com"},
    {"ap1.datadoghq.com", "https://api.ap1.datadoghq.com", "https://ap1.datadoghq.com"},
}};

constexpr const char* kDefaultDatadogKey = "{monitor_id}:{group}";

}  // namespace

void ReadDatadog(MapReader& section, const std::filesystem::path& config_dir,
                 DatadogSettings& datadog) {
  datadog.enabled = true;
  section.Read("site", datadog.site);
  const Site* site = nullptr;
  for (const Site& known : kSites) {
    if (known.name == datadog.site) site = &known;
  }
  if (site == nullptr) {
    section.Fail("site",
                 "expected datadoghq.com, datadoghq.eu, us3.datadoghq.com, "
                 "us5.datadoghq.com or ap1.datadoghq.com, got \"" +
                     datadog.site + "\"");
  } else {
    datadog.api_url = site->api_url;
    datadog.app_url = site->app_url;
  }
  section.Read("base_url", datadog.api_url);
  while (datadog.api_url.ends_with('/')) datadog.api_url.pop_back();
  SecretRef api_key = ReadSecret(section, "api_key", config_dir, /*required=*/true, "DD_API_KEY");
  SecretRef app_key = ReadSecret(section, "app_key", config_dir, /*required=*/true, "DD_APP_KEY");
  datadog.api_key = std::move(api_key.value);
  datadog.app_key = std::move(app_key.value);
  datadog.keys_unresolved = api_key.unresolved;
  if (!app_key.unresolved.empty()) {
    if (!datadog.keys_unresolved.empty()) datadog.keys_unresolved += "\n";
    datadog.keys_unresolved += app_key.unresolved;
  }
  section.Read("page_size", datadog.page_size, 1, 1000);
  section.Read("max_pages", datadog.max_pages, 1, 100000);
}

void ReadDatadogCondition(MapReader& item, core::ConditionCommon common, Config& config) {
  DatadogConditionConfig entry;
  core::MonitorCondition& condition = entry.condition;
  condition.common = std::move(common);
  if (!config.datadog.enabled) {
    item.Fail("type",
              "a datadog_monitors condition needs a datadog: section (site, api_key_env, "
              "app_key_env) before the conditions");
  }
  if (item.Has("no_series_warn_after")) {
    item.Fail("no_series_warn_after", "only metric conditions answer with series");
  }
  item.Read("monitor_tags", condition.query.monitor_tags);
  std::string text = kDefaultDatadogKey;
  item.Read("key", text);
  if (auto parsed = core::KeyTemplate::Parse(text); !parsed) {
    item.Fail("key", parsed.error().message);
  } else {
    for (const std::string& field : parsed->Fields()) {
      const bool known = field == "monitor_id" || field == "id" || field == "monitor_name" ||
                         field == "name" || field == "group" || field == "status" ||
                         (field.starts_with("tags.") && field.size() > 5);
      if (!known) {
        item.Fail("key", "{" + field +
                             "}: a datadog_monitors key reads monitor_id, monitor_name, group, "
                             "status or tags.<name>, e.g. \"{monitor_id}:{tags.host}\"");
        break;
      }
    }
    condition.key = std::move(*parsed);
  }
  config.datadog_conditions.push_back(std::move(entry));
}

}  // namespace quell::config
