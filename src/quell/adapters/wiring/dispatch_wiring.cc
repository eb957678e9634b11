#include "quell/adapters/wiring/dispatch_wiring.h"

#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "quell/adapters/channels/ack_link.h"
#include "quell/adapters/channels/channel_builder.h"
#include "quell/adapters/wiring/store_url.h"

namespace quell::wiring {
namespace {

template <typename T>
T Value(const std::map<std::string, std::string>& map, const char* key, T fallback) {
  const auto it = map.find(key);
  return it == map.end() ? fallback : it->second;
}

app::ChannelLimits LimitsOf(const config::ChannelDelivery& delivery,
                            const config::DispatchSettings& dispatch) {
  app::ChannelLimits limits;
  limits.throttle_budget = dispatch.throttle_budget;
  limits.concurrency = delivery.concurrency;
  limits.max_attempts = delivery.max_attempts;
  limits.backoff.initial_backoff = delivery.initial_backoff;
  limits.backoff.max_backoff = delivery.max_backoff;
  limits.backoff.max_retry_after = delivery.max_retry_after;
  limits.grouping = delivery.grouping;
  return limits;
}

// The channel's group_limit, else its type's default (its kind's in the channel registry).
size_t GroupLimit(const config::ChannelConfig& channel) {
  return channel.delivery.group_limit > 0 ? channel.delivery.group_limit
                                          : channels::DefaultGroupLimitOf(channel.settings);
}

// Where a message's incident link starts, as the renderer makes it (link_base wins over
// public_url); ntfy's Click action. Empty: no link.
std::string LinkPrefix(const config::Config& config) {
  if (!config.dispatch.link_base.empty()) return config.dispatch.link_base;
  if (!config.http.public_url.empty()) return config.http.public_url + "/incidents/";
  return {};
}

// The channel the registry builds from the channel's settings and shared delivery settings.
core::Result<channels::BuiltChannel> Build(const config::ChannelConfig& channel,
                                           const config::Config& config, core::Clock& clock) {
  return channels::BuildChannel(
      channel.settings,
      {.name = channel.name,
       .timeouts = {.connect = channel.delivery.connect_timeout, .total = channel.delivery.timeout},
       .ca_file = channel.delivery.ca_file,
       .group_limit = GroupLimit(channel),
       .link_prefix = LinkPrefix(config),
       .clock = &clock});
}

core::Error Fail(const config::ChannelConfig& channel, const core::Error& error) {
  return core::Error{error.code, "channel \"" + channel.name + "\": " + error.message};
}

}  // namespace

templates::RendererOptions RendererOptionsFor(const config::Config& config) {
  templates::RendererOptions renderer;
  renderer.view.link_base_url = config.dispatch.link_base;
  renderer.view.public_url = config.http.public_url;
  if (!config.http.ack_link_secret.empty() && !config.http.public_url.empty()) {
    auto signer = std::make_shared<channels::AckLinkSigner>(
        config.http.ack_link_secret, config.http.public_url, config.http.ack_link_ttl);
    renderer.view.ack_link = [signer](std::string_view key, uint64_t generation,
                                      core::WallTime issued_at) {
      return signer->Link(key, generation, issued_at);
    };
    renderer.view.group_ack_link = [signer](std::string_view channel, std::string_view group_key,
                                            uint64_t episode, core::WallTime issued_at) {
      return signer->GroupLink(channel, group_key, episode, issued_at);
    };
  }
  for (const auto& [condition, severity] : config.condition_severity) {
    renderer.view.condition_severity.emplace(condition, severity);
  }
  for (const config::ChannelConfig& channel : config.channels) {
    if (auto segments = channels::MaxSegmentsOf(channel.settings)) {
      renderer.sms_max_segments = *segments;
    }
    if (channel.delivery.group_limit > 0) {
      renderer.group_limits.emplace(channel.name, channel.delivery.group_limit);
    }
    const auto& parts = channel.delivery.templates;
    renderer.channels.emplace(channel.name, templates::ChannelTemplates{
                                                .type = std::string(channel.type()),
                                                .subject = Value<std::string>(parts, "subject", ""),
                                                .body = Value<std::string>(parts, "body", "")});
    for (const auto& [part, where] : channel.delivery.template_where) {
      renderer.template_where.emplace(channel.name + "." + part, where);
    }
  }
  return renderer;
}

app::ChannelLimits ChannelLimitsFor(const config::ChannelConfig& channel,
                                    const config::Config& config) {
  app::ChannelLimits limits = LimitsOf(channel.delivery, config.dispatch);
  limits.pacing = channels::PacingOf(channel.settings);
  return limits;
}

app::DispatcherOptions DispatcherOptionsFor(const config::Config& config, std::string owner) {
  app::DispatcherOptions options;
  options.owner = std::move(owner);
  options.lease = config.dispatch.lease;
  options.claim_batch = config.dispatch.batch;
  options.record_every = config.dispatch.record_every;
  // With a claim ahead (a second connection), a round goes on through up to 16 full batches
  // (for at most DispatcherOptions::round_time), writing outcomes while the next batch is on
  // the wire.
  options.batches_per_round = 16;
  options.dead_letter_channel = config.dispatch.dead_letter;
  options.dead_letter_interval = config.dispatch.dead_letter_interval;
  if (config.retention.outbox.count() > 0) options.outbox_retention = config.retention.outbox;
  return options;
}

std::vector<std::string> ChannelProblems(const config::Config& config, core::Clock& clock) {
  std::vector<std::string> problems;
  for (const config::ChannelConfig& channel : config.channels) {
    problems.insert(problems.end(), channel.unresolved_secrets.begin(),
                    channel.unresolved_secrets.end());
    if (!channel.unresolved_secrets.empty()) continue;  // built without them, it would mislead
    core::Status built;
    if (auto made = Build(channel, config, clock); !made) built = made.error();
    if (!built) problems.push_back(channel.where + ": " + Fail(channel, built.error()).message);
  }
  std::vector<std::string> templates = templates::TemplateProblems(RendererOptionsFor(config));
  problems.insert(problems.end(), templates.begin(), templates.end());
  return problems;
}

core::Result<std::unique_ptr<DispatchWiring>> DispatchWiring::Create(
    const config::Config& config, core::OutboxStore& store, core::Clock& clock, std::string owner,
    const std::string& claim_ahead_url) {
  // The loader lets a config with unresolved channel secrets through for the poller; sending
  // needs every one.
  for (const config::ChannelConfig& channel : config.channels) {
    if (!channel.unresolved_secrets.empty()) {
      return core::MakeError(core::ErrorCode::kInvalidArgument, channel.unresolved_secrets[0]);
    }
  }
  // The messages would go out without the ack links the config asks for.
  if (!config.http.ack_link_secret_unresolved.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           config.http.ack_link_secret_unresolved);
  }
  std::unique_ptr<DispatchWiring> wiring(new DispatchWiring());
  curl::CurlOptions curl_options;
  size_t max_concurrency = 8;
  for (const config::ChannelConfig& channel : config.channels) {
    // One multi handle serves every HTTP channel, so one CA file: the first channel's that
    // names one (tests use a private CA; production uses the system bundle).
    if (curl_options.ca_file.empty()) curl_options.ca_file = channel.delivery.ca_file;
    max_concurrency += channel.delivery.concurrency;
  }
  curl_options.max_idle_handles = max_concurrency;
  wiring->http_ = std::make_unique<curl::CurlMultiClient>(curl_options);

  templates::RendererOptions renderer = RendererOptionsFor(config);
  if (auto checked = templates::CheckTemplates(renderer); !checked) return checked.error();
  wiring->renderer_ = std::make_unique<templates::MustacheRenderer>(std::move(renderer));

  app::DispatcherOptions options = DispatcherOptionsFor(config, std::move(owner));
  // PostgreSQL claims ahead and writes outcomes at once, on their two connections; SQLite's
  // writers take turns.
  options.writers_take_turns = claim_ahead_url.rfind("postgres://", 0) != 0 &&
                               claim_ahead_url.rfind("postgresql://", 0) != 0;
  wiring->dispatcher_ =
      std::make_unique<app::Dispatcher>(store, *wiring->renderer_, *wiring->http_, clock, options);
  if (!claim_ahead_url.empty()) {
    auto ahead = OpenStore(claim_ahead_url);
    if (!ahead) return ahead.error();
    wiring->claim_ahead_store_ = std::make_unique<core::Store>(std::move(*ahead));
    wiring->dispatcher_->ClaimAheadWith(wiring->claim_ahead_store_->outbox());
    // SQLite's outcomes stay on the claim-ahead connection: they take turns with its claims
    // anyway, and a connection that wrote last keeps its page cache (another's commit empties it).
    if (!options.writers_take_turns) {
      auto record = OpenStore(claim_ahead_url);
      if (!record) return record.error();
      wiring->record_store_ = std::make_unique<core::Store>(std::move(*record));
      wiring->dispatcher_->RecordWith(wiring->record_store_->outbox());
    }
  }

  for (const config::ChannelConfig& channel : config.channels) {
    const std::string type(channel.type());
    auto made = Build(channel, config, clock);
    if (!made) return Fail(channel, made.error());
    if (auto* http = std::get_if<std::unique_ptr<core::HttpChannel>>(&*made)) {
      wiring->dispatcher_->AddHttpChannel(channel.name, type, **http,
                                          ChannelLimitsFor(channel, config));
      wiring->http_channels_.push_back(std::move(*http));
    } else {
      auto& blocking = std::get<std::unique_ptr<core::Channel>>(*made);
      wiring->dispatcher_->AddChannel(channel.name, type, *blocking,
                                      ChannelLimitsFor(channel, config));
      wiring->channels_.push_back(std::move(blocking));
    }
  }
  return wiring;
}

}  // namespace quell::wiring
