#include "quell/adapters/config/config_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "quell/adapters/config/channel_reader.h"
#include "quell/adapters/config/daemon_reader.h"
#include "quell/adapters/config/datadog_reader.h"
#include "quell/adapters/config/inhibition_reader.h"
#include "quell/adapters/config/maintenance_reader.h"
#include "quell/adapters/config/secret_reader.h"
#include "quell/adapters/config/sentry_reader.h"
#include "quell/adapters/config/store_url_check.h"
#include "quell/adapters/config/unclosed_quote.h"
#include "quell/adapters/config/yaml_reader.h"
#include "quell/adapters/zones/date_zone_rules.h"
#include "quell/core/conditions/key_template.h"

namespace quell::config {
namespace {

constexpr const char* kDefaultErrorKey = "{tags.tenant}:{tags.agent_stage}:{error_group_id}";

// `source_failures_to_open` in a source's section: its own threshold (0: off).
void ReadSourceFailures(MapReader& section, std::optional<uint32_t>& out) {
  if (!section.Has("source_failures_to_open")) return;
  uint32_t failures = 0;
  section.Read("source_failures_to_open", failures, 0, 1000000);
  out = failures;
}

void ReadHttp(MapReader& section, HttpSettings& http) {
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
}

void ReadInfrai(MapReader section, const std::filesystem::path& config_dir, const EnvLookup& env,
                InfraiSettings& infrai) {
  infrai.enabled = true;
  section.Read("base_url", infrai.base_url);
  while (infrai.base_url.ends_with('/')) infrai.base_url.pop_back();
  if (section.HasRefused("api_key")) {
    section.Fail("api_key",
                 "the key does not belong in the config: set INFRAI_API_KEY or name a file in "
                 "infrai.api_key_file");
  }
  std::string key_env = "INFRAI_API_KEY";
  std::string key_file;
  infrai.api_key_where = section.Locate(section.Has("api_key_env") ? "api_key_env" : "");
  section.Read("api_key_env", key_env);
  section.Read("api_key_file", key_file);
  if (!key_file.empty()) {
    std::filesystem::path path(key_file);
    if (path.is_relative()) path = config_dir / path;
    std::string why;
    if (auto key = ReadSecretFile(path, why)) {
      infrai.api_key = std::move(*key);
      infrai.api_key_origin = "file " + path.string();
    } else {
      section.Fail("api_key_file", why);
    }
  } else if (auto key = env(key_env); key && !key->empty()) {
    infrai.api_key = std::move(*key);
    infrai.api_key_origin = "environment variable " + key_env;
  } else {
    infrai.api_key_origin = "environment variable " + key_env + " (not set)";
  }
  ReadHttp(section, infrai.http);
  section.Read("page_size", infrai.page_size, 0, 100000);
  section.Read("max_pages", infrai.max_pages, 1, 1000000);
  section.Read("max_enrich", infrai.max_enrich, 0, 10000);
  section.Read("enrich_concurrency", infrai.enrich_concurrency, 1, 64);
  section.Read("groups_path", infrai.groups_path);
  ReadSourceFailures(section, infrai.source_failures_to_open);
  MapReader fields = section.Child("fields");
  infrai::InfraiFields& f = infrai.fields;
  for (auto& [name, target] :
       std::initializer_list<std::pair<const char*, std::vector<std::string>*>>{
           {"groups", &f.groups},
           {"next_cursor", &f.next_cursor},
           {"id", &f.id},
           {"title", &f.title},
           {"message", &f.message},
           {"level", &f.level},
           {"status", &f.status},
           {"resolved", &f.resolved},
           {"count", &f.count},
           {"first_seen", &f.first_seen},
           {"last_seen", &f.last_seen},
           {"tags", &f.tags},
           {"series", &f.series},
           {"series_labels", &f.series_labels},
           {"points", &f.points},
           {"point_time", &f.point_time},
           {"point_value", &f.point_value}}) {
    fields.Read(name, *target);
    if (target->empty()) fields.Fail(name, "needs at least one field name");
  }
  fields.Finish();
  section.Finish();
}

void ReadPrometheus(MapReader section, PrometheusSettings& prometheus) {
  prometheus.enabled = true;
  prometheus.url_where = section.Locate(section.Has("url") ? "url" : "");
  section.Read("url", prometheus.url);
  while (prometheus.url.ends_with('/')) prometheus.url.pop_back();
  ReadHttp(section, prometheus.http);
  ReadSourceFailures(section, prometheus.source_failures_to_open);
  section.Finish();
}

// `escalation: [{after: 0s, channels: [chat]}, {after: 5m, channels: [pager]}]`.
void ReadEscalation(MapReader& section, std::vector<core::EscalationTier>& out) {
  std::vector<core::EscalationTier> tiers;
  for (MapReader& item : section.Items("escalation")) {
    core::EscalationTier tier;
    if (!item.Has("after")) item.Fail("", "a tier needs after, e.g. after: 5m");
    item.Read("after", tier.after);
    item.ReadNameList("channels", tier.channels);
    item.Finish();
    tiers.push_back(std::move(tier));
  }
  if (auto valid = core::ValidateEscalation(tiers); !valid) {
    section.Fail("escalation", valid.error().message);
  }
  out = std::move(tiers);
}

// `route: [{match: {severity: critical}, channels: [pager]}, ..., {channels: [chat]}]`, first
// match wins; a route without `match` is the catch-all and must come last.
void ReadRoutes(MapReader& section, std::vector<core::ChannelRoute>& out) {
  std::vector<core::ChannelRoute> routes;
  bool caught_all = false;
  for (MapReader& item : section.Items("route")) {
    core::ChannelRoute route;
    if (caught_all) item.Fail("", "comes after a route without match, which takes everything");
    if (item.Has("match")) {
      item.Read("match", route.match);
      if (route.match.empty()) {
        item.Fail("match", "is empty; leave match out for the catch-all route");
      }
    } else {
      caught_all = true;
    }
    if (item.Has("escalation")) {
      if (item.Has("channels")) {
        item.Fail("escalation", "name either channels or escalation tiers, not both");
      }
      ReadEscalation(item, route.escalation);
    } else {
      item.ReadNameList("channels", route.channels);
      if (route.channels.empty() && !item.Has("channels")) {
        item.Fail("", "a route needs channels, e.g. channels: [pager]");
      }
    }
    item.Finish();
    routes.push_back(std::move(route));
  }
  out = std::move(routes);
}

// Reads the policy settings of `section` over `common` (the defaults, or a copy of them), and
// where its inhibited_by entries are over `inhibition_sites`.
void ReadCommon(MapReader& section, core::ConditionCommon& common,
                InhibitionSites& inhibition_sites) {
  core::Policy& policy = common.policy;
  section.Read("cooldown", policy.cooldown);
  section.Read("healthy_polls_to_close", policy.healthy_polls_to_close, 1, 1000000);
  section.Read("unhealthy_polls_to_open", policy.unhealthy_polls_to_open, 1, 1000000);
  section.Read("evidence_limit", policy.evidence_limit, 0, 100);
  section.Read("min_open", policy.min_open);
  if (section.Has("renotify_limit")) {
    uint32_t limit = 0;
    section.Read("renotify_limit", limit, 0, 1000000);
    policy.renotify_limit = limit;
  }
  if (section.Has("flap")) {
    MapReader flap = section.Child("flap");
    core::FlapDamping damping = policy.flap.value_or(core::FlapDamping{});
    flap.Read("window", damping.window, 3, 32);
    flap.Read("low_percent", damping.low_percent);
    flap.Read("high_percent", damping.high_percent);
    flap.Read("reopen_within", damping.reopen_within);
    flap.Finish();
    policy.flap = damping;
  }
  section.Read("interval", common.interval);
  // A section's channels replace the escalation it inherited, and its escalation the channels.
  if (section.Has("channels") && section.Has("escalation")) {
    section.Fail("escalation", "name either channels or escalation tiers, not both");
  }
  if (section.Has("channels")) common.escalation.clear();
  section.Read("channels", common.channels);
  if (section.Has("escalation")) ReadEscalation(section, common.escalation);
  if (section.Has("route")) ReadRoutes(section, common.routes);
  ReadInhibitions(section, common.inhibited_by, inhibition_sites);
  section.Read("shadow", common.shadow);
  section.Read("no_series_warn_after", common.no_series_warn_after, 0, 1000000);
  if (auto valid = core::Validate(policy); !valid) section.Fail("", valid.error().message);
  if (common.interval.count() <= 0) section.Fail("interval", "must be positive");
}

std::optional<core::KeyTemplate> ReadKey(MapReader& item, const char* fallback) {
  std::string text = fallback ? fallback : "";
  item.Read("key", text);
  if (text.empty()) {
    item.Fail("key", "a key template is required, e.g. \"{tenant}:model-answer:latency-p99\"");
    return std::nullopt;
  }
  auto parsed = core::KeyTemplate::Parse(text);
  if (!parsed) {
    item.Fail("key", parsed.error().message);
    return std::nullopt;
  }
  return std::move(*parsed);
}

void ReadErrorCondition(MapReader& item, core::ConditionCommon common, Config& config) {
  core::ErrorGroupCondition condition;
  condition.common = std::move(common);
  if (item.Has("no_series_warn_after")) {
    item.Fail("no_series_warn_after", "only metric conditions answer with series");
  }
  if (auto key = ReadKey(item, kDefaultErrorKey)) condition.key = std::move(*key);
  std::string rule = "unresolved";
  item.Read("unhealthy", rule);
  if (rule == "unresolved") {
    condition.rule = core::UnhealthyRule::kUnresolved;
  } else if (rule == "new_events") {
    condition.rule = core::UnhealthyRule::kNewEvents;
  } else {
    item.Fail("unhealthy", "expected unresolved or new_events, got \"" + rule + "\"");
  }
  item.Read("levels", condition.filter.levels);
  item.Read("tags", condition.filter.tags);
  config.error_conditions.push_back(std::move(condition));
}

void ReadMetricCondition(MapReader& item, core::ConditionCommon common, MetricSourceKind source,
                         Config& config) {
  MetricConditionConfig entry;
  entry.source = source;
  core::MetricCondition& condition = entry.condition;
  condition.common = std::move(common);
  if (auto key = ReadKey(item, nullptr)) condition.key = std::move(*key);
  entry.query_where = item.Locate(source == MetricSourceKind::kPrometheus ? "query" : "metric");
  if (source == MetricSourceKind::kPrometheus) {
    item.Read("query", condition.query.expr);
    if (condition.query.expr.empty()) item.Fail("query", "a PromQL query is required");
  } else {
    item.Read("metric", condition.metric);
    if (condition.metric.empty()) item.Fail("metric", "the metric name is required");
    core::Labels params;
    item.Read("params", params);
    condition.query.params = std::move(params);
    item.Read("where", condition.where);
  }
  if (item.Has("group_by")) {
    std::vector<std::string> group_by;
    item.Read("group_by", group_by);
    condition.group_by = std::move(group_by);
  }
  std::string agg = source == MetricSourceKind::kPrometheus ? "last" : "avg";
  item.Read("agg", agg);
  if (auto parsed = core::ParseAggregation(agg)) {
    condition.aggregation = *parsed;
  } else {
    item.Fail("agg", "expected last, avg, min, max, sum, count, p50, p90, p95 or p99");
  }
  item.Read("window", condition.window);
  const bool above = item.Has("above");
  const bool below = item.Has("below");
  if (above == below) {
    item.Fail("", "give exactly one of `above` or `below` (the threshold)");
  }
  condition.threshold.direction =
      below ? core::ThresholdDirection::kBelow : core::ThresholdDirection::kAbove;
  item.Read(below ? "below" : "above", condition.threshold.trigger);
  item.Read("recovery", condition.threshold.recovery);
  std::string no_data = "unknown";
  item.Read("no_data", no_data);
  if (no_data == "unknown") {
    condition.no_data = core::NoDataRule::kUnknown;
  } else if (no_data == "healthy") {
    condition.no_data = core::NoDataRule::kHealthy;
  } else if (no_data == "unhealthy") {
    condition.no_data = core::NoDataRule::kUnhealthy;
  } else {
    item.Fail("no_data", "expected unknown, healthy or unhealthy");
  }
  if (auto valid = core::Validate(condition); !valid) item.Fail("", valid.error().message);
  config.metric_conditions.push_back(std::move(entry));
}

// `type: push`: keys over what a pushed alert carries, its labels and annotations.
void ReadPushCondition(MapReader& item, core::ConditionCommon common, Config& config) {
  core::PushCondition condition;
  condition.common = std::move(common);
  if (item.Has("no_series_warn_after")) {
    item.Fail("no_series_warn_after", "only metric conditions answer with series");
  }
  if (auto key = ReadKey(item, nullptr)) {
    for (const std::string& field : key->Fields()) {
      const bool label = field.starts_with("labels.") && field.size() > 7;
      const bool annotation = field.starts_with("annotations.") && field.size() > 12;
      if (!label && !annotation) {
        item.Fail("key", "{" + field +
                             "}: a push condition's key reads labels.<name> or "
                             "annotations.<name>, e.g. \"{labels.tenant}:{labels.alertname}\"");
        break;
      }
    }
    condition.key = std::move(*key);
  }
  const bool has_stale_after = item.Has("stale_after");
  if (!has_stale_after) {
    item.Fail("",
              "a push condition needs stale_after, e.g. stale_after: 15m (a key nobody "
              "pushes again within it is unknown)");
  }
  item.Read("stale_after", condition.stale_after);
  item.Read("expire_after", condition.expire_after);
  // Without stale_after, expire_after has nothing to be longer than: one error is enough.
  if (auto valid = core::Validate(condition); has_stale_after && !valid) {
    const std::string& message = valid.error().message;
    const std::string field = message.starts_with("expire_after") ? "expire_after" : "stale_after";
    item.Fail(field, message.substr(message.find(':') + 2));
  }
  config.push_conditions.push_back(std::move(condition));
}

void ReadConditions(MapReader& root, const core::ConditionCommon& defaults,
                    const InhibitionSites& default_sites, Config& config) {
  std::map<std::string, InhibitionSites> inhibition_sites;
  std::set<std::string> names;
  for (MapReader& item : root.Items("conditions")) {
    std::string name;
    item.Read("name", name);
    if (!IsConfigName(name)) {
      item.Fail("name", "a name of letters, digits, '-', '_' or '.' is required");
    } else if (!names.insert(name).second) {
      item.Fail("name", "\"" + name + "\" names two conditions");
    }
    core::ConditionCommon common = defaults;
    common.name = name;
    InhibitionSites sites = default_sites;
    ReadCommon(item, common, sites);
    // Per condition only: a shard count fits one huge listing, not every condition.
    item.Read("shards", common.shards, 1, 64);
    inhibition_sites[name] = std::move(sites);
    // Unset, a message takes the source's level (fatal stays fatal), else "error".
    std::string severity;
    item.Read("severity", severity);
    if (!severity.empty() && !IsSeverity(severity)) {
      item.Fail("severity", "expected critical, error, warning or info, got \"" + severity + "\"");
    }
    if (!severity.empty()) config.condition_severity[name] = severity;
    std::string type;
    item.Read("type", type);
    if ((type == "error_groups" || type == "infrai_metric") &&
        config.infrai.api_key_where.empty()) {
      config.infrai.api_key_where = item.Locate("type");
    }
    if (type == "error_groups") {
      ReadErrorCondition(item, std::move(common), config);
    } else if (type == "infrai_metric") {
      ReadMetricCondition(item, std::move(common), MetricSourceKind::kInfrai, config);
    } else if (type == "prometheus") {
      ReadMetricCondition(item, std::move(common), MetricSourceKind::kPrometheus, config);
    } else if (type == "datadog_monitors") {
      ReadDatadogCondition(item, std::move(common), config);
    } else if (type == "push") {
      if (config.push_where.empty()) config.push_where = item.Locate("type");
      ReadPushCondition(item, std::move(common), config);
    } else if (type == "sentry_issues") {
      ReadSentryCondition(item, std::move(common), config);
    } else {
      item.Fail("type",
                "expected error_groups, infrai_metric, prometheus, push, sentry_issues or "
                "datadog_monitors, got \"" +
                    type + "\"");
    }
    item.Finish();
  }
  CheckInhibitions(root.context(), inhibition_sites, default_sites, config);
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](std::string_view name) -> std::optional<std::string> {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): read at start-up, before any thread runs.
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

namespace {

// Reads the whole file into `config`, every problem into `context`.
void ReadRetention(MapReader section, RetentionSettings& retention) {
  for (auto [key, value] :
       {std::pair{"decisions", &retention.decisions},
        std::pair{"key_groups", &retention.key_groups}, std::pair{"outbox", &retention.outbox}}) {
    section.Read(key, *value);
    if (value->count() < 0) section.Fail(key, "must not be negative (0 keeps it forever)");
  }
  section.Finish();
}

void ReadLimits(MapReader section, core::InputLimits& limits) {
  uint32_t key_bytes = static_cast<uint32_t>(limits.max_key_bytes);
  uint32_t evidence_bytes = static_cast<uint32_t>(limits.max_evidence_bytes);
  uint32_t evidence_depth = static_cast<uint32_t>(limits.max_evidence_depth);
  section.Read("key_bytes", key_bytes, 16, 64 * 1024);
  section.Read("evidence_bytes", evidence_bytes, 256, 16 * 1024 * 1024);
  section.Read("evidence_depth", evidence_depth, 1, 256);
  section.Read("future_skew", limits.max_future_skew);
  if (limits.max_future_skew.count() < 0) section.Fail("future_skew", "must not be negative");
  limits.max_key_bytes = key_bytes;
  limits.max_evidence_bytes = evidence_bytes;
  limits.max_evidence_depth = evidence_depth;
  section.Finish();
}

// `need_conditions`: a config that polls must name something to poll; one that only replays
// recorded observations through its policies and channels need not. `text`: the file's bytes
// when the caller holds them (LoadConfigText); otherwise the file at `path` is read.
void ReadConfigFile(const std::string& path, const EnvLookup& env, YamlContext& context,
                    Config& config, bool need_conditions = true,
                    std::optional<std::string_view> text = std::nullopt) {
  YAML::Node root;
  try {
    root = text ? YAML::Load(std::string(*text)) : YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    std::string message =
        path + ": cannot read the config file: " + std::generic_category().message(errno);
    context.error = core::MakeError(core::ErrorCode::kInvalidArgument, message);
    context.errors.push_back(std::move(message));
    return;
  } catch (const YAML::Exception& e) {
    std::string message = path + ":" + std::to_string(e.mark.line + 1) + ":" +
                          std::to_string(e.mark.column + 1) + ": " + e.msg;
    std::string read;
    if (!text) {
      std::ifstream in(path);
      read.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (const auto quote =
            SuspectQuoteBefore(text ? *text : read, {e.mark.line + 1, e.mark.column + 1});
        quote && quote->line < e.mark.line + 1) {
      // The parser's position is where it gave up; the mistake is the quote left open.
      message = path + ":" + std::to_string(quote->line) + ":" + std::to_string(quote->column) +
                ": a quoted value starts here and is never closed (the parser gave up at line " +
                std::to_string(e.mark.line + 1) + ": " + e.msg + ")";
    }
    context.error = core::MakeError(core::ErrorCode::kInvalidArgument, message);
    context.errors.push_back(std::move(message));
    return;
  }

  config.path = path;
  if (const auto base = env("INFRAI_BASE_URL"); base && !base->empty()) {
    config.infrai.base_url = *base;
  }
  MapReader top(context, root, "");
  top.Read("store", config.store_url);
  if (core::Status store = CheckStoreUrl(config.store_url); !store) {
    top.Fail("store", store.error().message);
  }
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (top.Has("infrai")) {
    ReadInfrai(top.Child("infrai"), dir, env, config.infrai);
  } else {
    ReadInfrai(MapReader(context, YAML::Node(YAML::NodeType::Map), "infrai"), dir, env,
               config.infrai);
    config.infrai.enabled = false;
    config.infrai.api_key_where.clear();  // the first Infrai condition is pointed at instead
  }
  if (top.Has("prometheus")) ReadPrometheus(top.Child("prometheus"), config.prometheus);
  if (top.Has("sentry")) {
    MapReader section = top.Child("sentry");
    ReadSentry(section, dir, config);
    ReadHttp(section, config.sentry.http);
    ReadSourceFailures(section, config.sentry.source_failures_to_open);
    section.Finish();
  }
  if (top.Has("datadog")) {
    MapReader section = top.Child("datadog");
    ReadDatadog(section, dir, config.datadog);
    ReadHttp(section, config.datadog.http);
    ReadSourceFailures(section, config.datadog.source_failures_to_open);
    section.Finish();
  }

  core::ConditionCommon defaults;
  MapReader defaults_section = top.Child("defaults");
  InhibitionSites default_sites;
  ReadCommon(defaults_section, defaults, default_sites);
  defaults_section.Finish();
  ReadConditions(top, defaults, default_sites, config);
  // A top-level shadow holds every condition, whatever the condition says: a rollout in shadow
  // must not page.
  top.Read("shadow", config.shadow);
  config.defaults = defaults;
  if (config.shadow) {
    config.defaults.shadow = true;
    for (auto& condition : config.error_conditions) condition.common.shadow = true;
    for (auto& condition : config.metric_conditions) condition.condition.common.shadow = true;
    for (auto& condition : config.push_conditions) condition.common.shadow = true;
    for (auto& entry : config.sentry_conditions) entry.condition.common.shadow = true;
    for (auto& entry : config.datadog_conditions) entry.condition.common.shadow = true;
  }
  ReadChannels(top, dir, config);
  ReadDispatch(top.Child("dispatch"), config);
  ReadMaintenance(top, zones::SystemZoneRules(), config.maintenance);
  ReadRetention(top.Child("retention"), config.retention);
  ReadLimits(top.Child("limits"), config.limits);
  for (auto& condition : config.error_conditions) {
    condition.key.set_max_bytes(config.limits.max_key_bytes);
  }
  for (auto& entry : config.metric_conditions) {
    entry.condition.key.set_max_bytes(config.limits.max_key_bytes);
  }
  for (auto& condition : config.push_conditions) {
    condition.key.set_max_bytes(config.limits.max_key_bytes);
  }
  for (auto& entry : config.sentry_conditions) {
    entry.condition.key.set_max_bytes(config.limits.max_key_bytes);
  }
  for (auto& entry : config.datadog_conditions) {
    entry.condition.key.set_max_bytes(config.limits.max_key_bytes);
  }
  CheckRoutes(top, config);
  top.Read("source_failures_to_open", config.source_failures_to_open, 0, 1000000);
  ReadMetaChannels(top, config);
  ReadDaemonSections(top, dir, config);
  top.Finish();
  if (need_conditions && !context.error && config.error_conditions.empty() &&
      config.metric_conditions.empty() && config.push_conditions.empty() &&
      config.sentry_conditions.empty() && config.datadog_conditions.empty()) {
    context.Fail(root.Mark(), "conditions", "no conditions: there is nothing to poll");
  }
}

}  // namespace

core::Result<Config> LoadConfig(const std::string& path, const EnvLookup& env) {
  YamlContext context{.file = path, .env = env, .error = std::nullopt, .errors = {}};
  Config config;
  ReadConfigFile(path, env, context, config);
  if (context.error) return *context.error;
  return config;
}

core::Result<Config> LoadConfigText(std::string_view text, const std::string& path,
                                    const EnvLookup& env) {
  YamlContext context{.file = path, .env = env, .error = std::nullopt, .errors = {}};
  Config config;
  ReadConfigFile(path, env, context, config, /*need_conditions=*/true, text);
  if (context.error) return *context.error;
  return config;
}

CheckedConfig ReadConfigTextForCheck(std::string_view text, const std::string& path,
                                     const EnvLookup& env) {
  YamlContext context{.file = path, .env = env, .error = std::nullopt, .errors = {}};
  CheckedConfig checked;
  ReadConfigFile(path, env, context, checked.config, /*need_conditions=*/true, text);
  checked.config.path = path;
  checked.errors = std::move(context.errors);
  SortByLocation(path, checked.errors);
  return checked;
}

core::Result<Config> LoadConfigForReplay(const std::string& path, const EnvLookup& env) {
  YamlContext context{.file = path, .env = env, .error = std::nullopt, .errors = {}};
  Config config;
  ReadConfigFile(path, env, context, config, /*need_conditions=*/false);
  if (context.error) return *context.error;
  return config;
}

CheckedConfig ReadConfigForCheck(const std::string& path, const EnvLookup& env) {
  YamlContext context{.file = path, .env = env, .error = std::nullopt, .errors = {}};
  CheckedConfig checked;
  ReadConfigFile(path, env, context, checked.config);
  checked.config.path = path;
  checked.errors = std::move(context.errors);
  SortByLocation(path, checked.errors);
  return checked;
}

std::vector<std::string> CheckConfig(const std::string& path, const EnvLookup& env) {
  return ReadConfigForCheck(path, env).errors;
}

void SortByLocation(const std::string& path, std::vector<std::string>& messages) {
  // Unknown keys are found when a section is finished, after its values: sort into file order.
  const auto position = [&path](const std::string& message) {
    unsigned long line = 0;
    unsigned long column = 0;
    if (message.starts_with(path + ":") && message.size() > path.size() + 1) {
      char* end = nullptr;
      line = std::strtoul(message.c_str() + path.size() + 1, &end, 10);
      if (end != nullptr && *end == ':') column = std::strtoul(end + 1, nullptr, 10);
    }
    return std::pair(line, column);
  };
  std::stable_sort(messages.begin(), messages.end(),
                   [&position](const std::string& a, const std::string& b) {
                     return position(a) < position(b);
                   });
}

}  // namespace quell::config
