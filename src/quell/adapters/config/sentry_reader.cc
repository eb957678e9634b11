#include "quell/adapters/config/sentry_reader.h"

#include <string>
#include <utility>

#include "quell/adapters/config/secret_reader.h"
#include "quell/core/conditions/key_template.h"

namespace quell::config {
namespace {

constexpr const char* kDefaultKey = "{project}:{id}";

bool IsSentryKeyField(const std::string& field) {
  if (field.starts_with("tags.")) return field.size() > 5;
  for (const char* name : {"id", "short_id", "project", "level", "title", "culprit"}) {
    if (field == name) return true;
  }
  return false;
}

}  // namespace

void ReadSentry(MapReader section, const std::filesystem::path& dir, Config& config) {
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
  if (section.Has("source_failures_to_open")) {
    uint32_t failures = 0;
    section.Read("source_failures_to_open", failures, 0, 1000000);
    sentry.source_failures_to_open = failures;
  }
  HttpSettings& http = config.sentry.http;
  section.Read("connect_timeout", http.connect_timeout);
  section.Read("timeout", http.timeout);
  section.Read("ca_file", http.ca_file);
  section.Read("poll_deadline", http.poll_deadline);
  if (http.poll_deadline && http.poll_deadline->count() <= 0) {
    section.Fail("poll_deadline", "must be positive");
  }
  MapReader retry = section.Child("retry");
  retry.Read("max_attempts", http.retry.max_attempts, 1, 20);
  retry.Read("initial_backoff", http.retry.initial_backoff);
  retry.Read("max_backoff", http.retry.max_backoff);
  retry.Read("max_retry_after", http.retry.max_retry_after);
  retry.Read("budget", http.retry.budget);
  retry.Finish();
  section.Finish();
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
  std::string key = kDefaultKey;
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
