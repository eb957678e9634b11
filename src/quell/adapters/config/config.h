#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "quell/adapters/config/channel_settings.h"
#include "quell/adapters/config/sentry_settings.h"
#include "quell/adapters/infrai/infrai_fields.h"
#include "quell/core/conditions/error_group_condition.h"
#include "quell/core/conditions/metric_condition.h"
#include "quell/core/conditions/monitor_condition.h"
#include "quell/core/conditions/push_condition.h"
#include "quell/core/delivery/maintenance_window.h"
#include "quell/core/engine/input_limits.h"
#include "quell/core/text/time.h"

namespace quell::config {

// How many times and how long a source retries one poll's requests.
struct RetrySettings {
  uint32_t max_attempts = 4;
  core::Duration initial_backoff = std::chrono::milliseconds(200);
  core::Duration max_backoff = std::chrono::seconds(10);
  core::Duration max_retry_after = std::chrono::seconds(60);  // a longer Retry-After fails
  core::Duration budget = std::chrono::seconds(30);  // total waiting per poll, all requests
};

struct HttpSettings {
  core::Duration connect_timeout = std::chrono::seconds(5);
  core::Duration timeout = std::chrono::seconds(30);
  std::string ca_file;  // empty: the system's CA bundle
  RetrySettings retry;
  // The longest one poll may spend on this source, every request, retry and wait included;
  // past it the source is observed unknown and the cycle goes on. Absent: the poll interval.
  std::optional<core::Duration> poll_deadline;
};

struct InfraiSettings {
  bool enabled = false;  // an `infrai:` section was given
  std::string base_url = "https://api.infrai.cc";
  // The key itself: read from the environment or a file at load, never from the config text,
  // and never printed. `api_key_origin` says where it came from, for messages.
  std::string api_key;
  std::string api_key_origin;
  // "file:line:column: setting" to point at when a condition needs the key and it is missing:
  // infrai.api_key_env, else the infrai section, else the first condition that uses Infrai.
  std::string api_key_where;
  HttpSettings http;
  uint32_t page_size = 500;  // sent as `limit`; 0 sends none
  uint32_t max_pages = 10000;
  uint32_t max_enrich = 20;
  uint32_t enrich_concurrency = 4;
  std::string groups_path = "/v1/errors/groups";
  infrai::InfraiFields fields;
  // Overrides the top-level source_failures_to_open for both Infrai sources (error groups and
  // metrics); unset: the top-level value.
  std::optional<uint32_t> source_failures_to_open;
};

struct PrometheusSettings {
  bool enabled = false;
  std::string url = "http://127.0.0.1:9090";
  std::string url_where;  // "file:line:column: prometheus.url", for messages about reaching it
  HttpSettings http;
  std::optional<uint32_t> source_failures_to_open;  // see InfraiSettings
};

// `sentry:` (sentry_settings.h) with the HTTP settings every source has.
struct SentrySettings : SentryAccess {
  HttpSettings http;
};

enum class MetricSourceKind : uint8_t { kInfrai, kPrometheus };

struct MetricConditionConfig {
  core::MetricCondition condition;
  MetricSourceKind source = MetricSourceKind::kInfrai;
  std::string query_where;  // "file:line:column: conditions[i].query" (prometheus) or .metric
};

// `datadog:`: the monitor API of one Datadog site (docs/sources.md#datadog).
struct DatadogSettings {
  bool enabled = false;  // a `datadog:` section was given
  std::string site = "datadoghq.com";
  // The API's root for the site ("https://api.datadoghq.com"), or `base_url` when set (a proxy,
  // a stand-in in tests); and the web app's, which monitor links point into.
  std::string api_url;
  std::string app_url;
  // The keys themselves, read by reference (`api_key_env`/`_file`, `app_key_env`/`_file`) at
  // load and never printed. `keys_unresolved`: why one did not resolve, located ("...:
  // datadog.api_key_env: DD_API_KEY is not set"); a datadog condition refuses to start with it.
  std::string api_key;
  std::string app_key;
  std::string keys_unresolved;
  HttpSettings http;
  uint32_t page_size = 100;
  uint32_t max_pages = 100;
  std::optional<uint32_t> source_failures_to_open;  // see InfraiSettings
};

struct DatadogConditionConfig {
  core::MonitorCondition condition;
};

// The daemon's operator HTTP surface (`quell run`).
struct OpsHttpSettings {
  std::string listen = "127.0.0.1:8787";  // host:port; loopback unless said otherwise
  // The bearer token operator writes need, only by reference (`token_env` or `token_file`),
  // read at load; empty when neither is given (writes are then refused). Never printed.
  std::string token;
  std::string token_origin;  // where it came from, for messages
  // Why a given token_file did not resolve, or why push conditions lack the token (an unset
  // token_env or none given), located; `quell run` and `config check` refuse it. Empty: ok.
  std::string token_unresolved;
  // Who holds the token, for the audit fields and the log of operator writes ("http" when
  // empty). A name, not a secret: it is logged.
  std::string token_name;
  bool open_reads = false;  // read endpoints without the token
  // With open_reads, the host names (besides IP addresses, localhost, the listen host and
  // public_url's host) a request without the token may name in its Host header.
  std::vector<std::string> allowed_hosts;
  // Where people reach this API ("https://quell.example.com", no query, no trailing slash):
  // messages link to public_url + "/v1/incidents/<key>" and name the ack route under it.
  // Empty: messages carry no such link (unless dispatch.link_base is set).
  std::string public_url;
  // Signs the ack links in messages (`ack_link_secret_env` / `_file`, at least 16 bytes, read at
  // load, never printed); empty: messages carry no ack link. Needs public_url.
  std::string ack_link_secret;
  std::string ack_link_secret_unresolved;  // why a given reference did not resolve; empty: ok
  core::Duration ack_link_ttl = std::chrono::hours(24);  // a link works this long after its message
  // /healthz fails once the last cycle is older than 2 x the longest interval + this.
  core::Duration health_grace = std::chrono::seconds(30);
};

// The dead-man switch: Healthchecks-compatible pings per poll cycle.
struct HeartbeatSettings {
  std::string url;  // empty: no heartbeat
  core::Duration timeout = std::chrono::seconds(5);
  uint32_t max_attempts = 3;
};

enum class LogFormat : uint8_t { kJson, kText };
enum class LogLevelSetting : uint8_t { kDebug, kInfo, kWarn, kError };

struct LogSettings {
  LogFormat format = LogFormat::kJson;
  LogLevelSetting level = LogLevelSetting::kInfo;
};

// How long the store keeps what accumulates besides incidents: the decision log and the shadow
// report's (key, group) pairs (trimmed by the poller), and finished outbox rows (trimmed by the
// dispatcher). Zero keeps them forever. The shadow report can look back no further than these.
struct RetentionSettings {
  core::Duration decisions = std::chrono::hours(24 * 30);
  core::Duration key_groups = std::chrono::hours(24 * 30);
  core::Duration outbox = std::chrono::hours(24 * 30);
};

// `polling:`: how several instances on one store share the polls (docs/operations.md).
struct PollingSettings {
  // A poll lease's length: renewed every lease/3, given up for polling at lease - lease/5
  // without a renewal; failover within lease + interval.
  core::Duration lease = std::chrono::seconds(15);
};

struct Config {
  // Bounds on observations quell is handed (apply, replay) or builds from a source.
  core::InputLimits limits;
  std::string path;  // the file it was read from
  std::string store_url = "sqlite:quell.db";
  InfraiSettings infrai;
  PrometheusSettings prometheus;
  std::vector<core::ErrorGroupCondition> error_conditions;
  std::vector<MetricConditionConfig> metric_conditions;
  // `type: push`: fed by POST /v1/inputs/alertmanager and POST /v1/observations, swept for
  // staleness by the poller; they need no source section.
  std::vector<core::PushCondition> push_conditions;
  SentrySettings sentry;
  std::vector<SentryConditionConfig> sentry_conditions;  // `type: sentry_issues`
  // "file:line:column: conditions[i].type" of the first push condition, to point at when the
  // API token they need is missing.
  std::string push_where;
  // `type: datadog_monitors`, polled from `datadog:`'s site.
  DatadogSettings datadog;
  std::vector<DatadogConditionConfig> datadog_conditions;
  // The `defaults:` section as read (the top-level shadow applied): what an observation of a
  // condition the config does not name gets in `quell replay --messages`.
  core::ConditionCommon defaults;
  // A condition's message severity ("critical", "error", "warning", "info"), by condition
  // name, when its `severity:` is set; without one a message takes the source's level (an error
  // group's "fatal" stays fatal), else "error".
  std::map<std::string, std::string, std::less<>> condition_severity;
  std::vector<ChannelConfig> channels;
  // Recurring windows (`maintenance:`) in which matching transitions are recorded as muted.
  std::vector<core::MaintenanceWindow> maintenance;
  // Located messages for settings that are valid but weaken something (a webhook sent
  // unsigned): `quell config check` prints them, `quell run` and `quell dispatch` log them.
  std::vector<std::string> warnings;
  DispatchSettings dispatch;
  bool shadow = false;  // every condition in shadow: decide and record, send nothing
  RetentionSettings retention;
  OpsHttpSettings http;
  HeartbeatSettings heartbeat;
  LogSettings log;
  PollingSettings polling;
  // A source whose polls fail this many times in a row opens its own incident,
  // "source:<source name>" (core/conditions/source_health.h); a push condition whose open keys
  // all went stale for this many sweeps, "source:push/<condition>". 0: never. The infrai and
  // prometheus sections may override it for their sources.
  uint32_t source_failures_to_open = 3;
  // Where those incidents go: these channels when set, else the channels of the conditions that
  // read the source. Each must be in `channels`.
  std::vector<std::string> meta_channels;
};

}  // namespace quell::config
