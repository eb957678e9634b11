#include "quell/adapters/config/sentry_reader.h"

#include <string>
#include <utility>

#include "quell/adapters/config/secret_reader.h"
#include "quell/core/conditions/key_template.h"

namespace quell::config {
namespace {

constexpr const char* kDefaultSentryKey = "{project}:{id}";

bool IsSentryKeyField(const std::string& field) {
  if (field.starts_with("tags.")) return field.size() > 5;
  for (const char* name : {"id", "short_id", "project", "level", "title", "culprit"}) {
    if (field == name) return true;
  }
  return false;
}

}  // namespace

void ReadSentry(MapReader& section, const std::filesystem::path& dir, Config& config) {
  SentryAccess& sentry = config.sentry;
  sentry.enabled = true;
  section.Read("base_url", sentry.base_url);
  while (sentry.base_url.ends_with('/')) sentry.base_url.pop_back();
  if (!sentry.base_url.starts_with("https://") && !sentry.base_url.starts_with("http://")) {
    section.Fail("base_url", "expected an http(s) URL such as https://sentry.io");
  }
  section.Read("org", sentry.org);
  if (sentry.org.empty())
    section.Fail("org", "the organization's slug is required, e.g. org: acme");
  SecretRef token = ReadSecret(section, "token", dir, /*required=*/true);
  sentry.token = std::move(token.value);
  sentry.token_origin = std::move(token.origin);
  sentry.token_unresolved = std::move(token.unresolved);
  section.Read("max_pages", sentry.max_pages, 1, 100000);
  section.Read("max_enrich", sentry.max_enrich, 0, 10000);
}

void ReadSentryCondition(MapReader& item, core::ConditionCommon common, Config& config) {
  SentryConditionConfig entry;
  core::ErrorGroupCondition& condition = entry.condition;
  condition.common = std::move(common);
  if (!config.sentry.enabled) {
    item.Fail("type",
              "a sentry_issues condition needs a `sentry:` section (org and token_env or "
              "token_file)");
  }
  if (item.Has("no_series_warn_after")) {
    item.Fail("no_series_warn_after", "only metric conditions answer with series");
  }
  entry.where = item.Locate("project");
  item.Read("project", entry.project);
  if (entry.project.empty()) item.Fail("project", "the project's slug is required");
  item.Read("query", entry.query);
  std::string key = kDefaultSentryKey;
  item.Read("key", key);
  if (auto parsed = core::KeyTemplate::Parse(key); !parsed) {
    item.Fail("key", parsed.error().message);
  } else {
    for (const std::string& field : parsed->Fields()) {
      if (!IsSentryKeyField(field)) {
        item.Fail("key", "{" + field +
                             "}: a sentry_issues key reads id, short_id, project, level, title, "
                             "culprit or tags.<name>");
        break;
      }
    }
    condition.key = std::move(*parsed);
  }
  item.Read("levels", condition.filter.levels);
  item.Read("tags", condition.filter.tags);
  config.sentry_conditions.push_back(std::move(entry));
}

}  // namespace quell::config
