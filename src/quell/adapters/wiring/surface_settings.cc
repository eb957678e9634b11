#include "quell/adapters/wiring/surface_settings.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "quell/adapters/wiring/poll_wiring.h"
#include "quell/adapters/wiring/route_lookup.h"

namespace quell::wiring {
namespace {

// The longest poll interval of the config: a slower condition is not late at the faster's.
core::Duration LongestInterval(const config::Config& config) {
  core::Duration longest = std::chrono::minutes(1);
  bool any = false;
  const auto see = [&](core::Duration d) {
    longest = any ? std::max(longest, d) : d;
    any = true;
  };
  for (const auto& c : config.error_conditions) see(c.common.interval);
  for (const auto& c : config.metric_conditions) see(c.condition.common.interval);
  for (const auto& c : config.push_conditions) see(c.common.interval);
  for (const auto& s : config.sentry_conditions) see(s.condition.common.interval);
  for (const auto& d : config.datadog_conditions) see(d.condition.common.interval);
  return longest;
}

// Every PagerDuty channel's webhook signing secret (a delivery signed with any is PagerDuty's).
std::vector<std::string> PagerDutySecrets(const config::Config& config) {
  std::vector<std::string> secrets;
  for (const config::ChannelConfig& channel : config.channels) {
    std::string secret =
        channels::CallbackSecretOf(channel.settings, channels::CallbackRoute::kPagerDutyWebhook);
    if (!secret.empty()) secrets.push_back(std::move(secret));
  }
  return secrets;
}

// Every Slack channel's signing secret (its Acknowledge buttons' clicks are signed with it).
std::vector<std::string> SlackSecrets(const config::Config& config) {
  std::vector<std::string> secrets;
  for (const config::ChannelConfig& channel : config.channels) {
    std::string secret =
        channels::CallbackSecretOf(channel.settings, channels::CallbackRoute::kSlackInteractivity);
    if (!secret.empty()) secrets.push_back(std::move(secret));
  }
  return secrets;
}

}  // namespace

SurfaceSettings SurfaceSettingsOf(const config::Config& config, core::Clock& clock) {
  SurfaceSettings settings;
  if (!config.http.ack_link_secret.empty()) {
    settings.callbacks.ack_links = std::make_shared<channels::AckLinkSigner>(
        config.http.ack_link_secret, config.http.public_url, config.http.ack_link_ttl);
  }
  settings.callbacks.pagerduty_secrets = PagerDutySecrets(config);
  settings.callbacks.slack_signing_secrets = SlackSecrets(config);
  if (!settings.callbacks.slack_signing_secrets.empty()) {
    settings.slack_http = std::make_shared<curl::CurlHttpClient>();
    settings.callbacks.slack_responses = settings.slack_http.get();
  }
  settings.routes = RoutesFromConfig(config);
  // Without a key the resolve is refused at the call, as for a metric condition.
  if (auto upstream = UpstreamWiring::Create(config, clock); upstream) {
    settings.upstream = std::move(*upstream);
  }
  settings.severities = config.condition_severity;
  // A source that hangs is cut at its deadline and the cycle commits its unknowns, so the limit
  // leaves room for every source of a cycle hanging to its deadline; only a loop that commits
  // nothing (stuck, or its store refusing writes) outlives it.
  settings.liveness = app::LivenessPolicy{.interval = LongestInterval(config),
                                          .poll_deadline = CyclePollDeadline(config),
                                          .grace = config.http.health_grace};
  settings.poll_lease = config.polling.lease;
  return settings;
}

app::RouteLookup LatestRoutes(const app::Latest<SurfaceSettings>& latest) {
  return [&latest](std::string_view condition) -> std::optional<app::Route> {
    const std::shared_ptr<const SurfaceSettings> settings = latest.Get();
    return settings->routes ? settings->routes(condition) : std::nullopt;
  };
}

app::UpstreamLookup LatestUpstream(const app::Latest<SurfaceSettings>& latest) {
  return [&latest](std::string_view condition) -> std::shared_ptr<core::GroupResolver> {
    const std::shared_ptr<const SurfaceSettings> settings = latest.Get();
    if (!settings->upstream) return nullptr;
    std::shared_ptr<core::GroupResolver> resolver = settings->upstream->Lookup()(condition);
    if (!resolver) return nullptr;
    // Keeps this config's wiring alive for the call, even if a reload replaces it meanwhile.
    return {settings, resolver.get()};
  };
}

std::function<std::shared_ptr<const app::ConditionSeverities>()> LatestSeverities(
    const app::Latest<SurfaceSettings>& latest) {
  return [&latest] {
    std::shared_ptr<const SurfaceSettings> settings = latest.Get();
    return std::shared_ptr<const app::ConditionSeverities>(settings, &settings->severities);
  };
}

http_server::CallbackSettingsSource LatestCallbacks(const app::Latest<SurfaceSettings>& latest) {
  return [&latest] {
    std::shared_ptr<const SurfaceSettings> settings = latest.Get();
    return std::shared_ptr<const http_server::CallbackSettings>(settings, &settings->callbacks);
  };
}

}  // namespace quell::wiring
