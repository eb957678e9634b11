#include "quell/adapters/wiring/ops_surface.h"

#include <cstdio>
#include <random>

#include "quell/adapters/http_server/allowed_hosts.h"
#include "quell/adapters/http_server/ops_routes.h"
#include "quell/adapters/wiring/poll_lease_map.h"
#include "quell/adapters/wiring/poller_options_for.h"
#include "quell/adapters/wiring/source_catalog_of.h"
#include "quell/adapters/wiring/store_url.h"
#include "quell/adapters/zones/date_zone_rules.h"
#include "quell/app/health.h"

namespace quell::wiring {
namespace {

// How long a login of the page lasts (docs/page.md): a working day and then some.
constexpr core::Duration kSessionTtl = std::chrono::hours(12);

}  // namespace

app::PushSettings PushSettingsOf(const config::Config& config) {
  app::PushSettings settings;
  settings.conditions = config.push_conditions;
  settings.poller = PollerOptionsFor(config, nullptr);
  settings.limits = config.limits;
  return settings;
}

OpsSurface::~OpsSurface() {
  if (server_) server_->Stop();
  // The last ping of a stopping daemon still goes out.
  if (heartbeat_) heartbeat_->WaitIdle();
}

core::Result<std::unique_ptr<OpsSurface>> OpsSurface::Create(
    const config::Config& config, const std::string& store_url, core::Clock& clock,
    core::EventLog& log, const http_server::MaintenanceListing& maintenance,
    const app::Latest<SurfaceSettings>& settings) {
  std::unique_ptr<OpsSurface> ops(new OpsSurface());
  ops->config_ = config;
  ops->settings_ = &settings;
  ops->clock_ = &clock;
  ops->log_ = &log;
  ops->maintenance_ = &maintenance;
  ops->started_at_ = clock.Monotonic();
  if (!config.http.token_unresolved.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "http: " + config.http.token_unresolved);
  }
  ops->metrics_ = std::make_unique<app::RunMetrics>(ops->registry_, clock);
  if (!config.heartbeat.url.empty()) {
    ops->heartbeat_http_ = std::make_unique<curl::CurlHttpClient>();
    app::HeartbeatOptions options;
    options.url = config.heartbeat.url;
    options.timeout = config.heartbeat.timeout;
    options.max_attempts = config.heartbeat.max_attempts;
    ops->heartbeat_ = std::make_unique<app::Heartbeat>(*ops->heartbeat_http_, clock, options);
  }
  auto health_store = OpenStore(store_url);
  if (!health_store) return health_store.error();
  ops->health_store_.emplace(std::move(*health_store));
  auto operator_store = OpenStore(store_url);
  if (!operator_store) return operator_store.error();
  ops->operator_store_.emplace(std::move(*operator_store));
  core::Store& store = *ops->operator_store_;
  // Operators' resolves route with the running config's channels, reloads included, and one
  // with "upstream": true reaches Infrai with its key (refused at the call without one).
  ops->operator_commands_ = std::make_unique<app::OperatorCommands>(
      store.incidents(), store.operators(), ops->encoder_, LatestRoutes(settings));
  ops->operator_commands_->EnableUpstream(store.reports(), LatestUpstream(settings));
  ops->operator_queries_ = std::make_unique<app::OperatorQueries>(
      store.incidents(), store.operators(), LatestSeverities(settings));
  if (!config.http.ack_link_secret_unresolved.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "http: " + config.http.ack_link_secret_unresolved);
  }
  // Whether or not the config has callbacks now: a reload may add them.
  auto callback_store = OpenStore(store_url);
  if (!callback_store) return callback_store.error();
  ops->callback_store_.emplace(std::move(*callback_store));
  ops->callback_commands_ = std::make_unique<app::OperatorCommands>(
      ops->callback_store_->incidents(), ops->callback_store_->operators(), ops->encoder_,
      LatestRoutes(settings));
  auto push_store = OpenStore(store_url);
  if (!push_store) return push_store.error();
  ops->push_store_.emplace(std::move(*push_store));
  ops->built_push_settings_.Set(PushSettingsOf(config));
  return ops;
}

std::vector<app::RunListener*> OpsSurface::listeners() {
  std::vector<app::RunListener*> out{metrics_.get(), &store_health_, &last_cycles_};
  if (heartbeat_) out.push_back(heartbeat_.get());
  return out;
}

core::Result<int> OpsSurface::Serve() {
  http_server::OpsServices services;
  services.clock = clock_;
  services.log = log_;
  app::HealthSources& health = services.health;
  health.clock = clock_;
  health.started_at = started_at_;
  health.policy = settings_->Get()->liveness;
  health.current_policy = [this] { return settings_->Get()->liveness; };
  health.last_committed_cycle = [this] { return metrics_->LastCommitted(); };
  health.role = role_;
  probes_ = std::make_unique<app::OpsProbes>(health_store_->incidents(), store_health_, *metrics_,
                                             registry_);
  health.ping_store = [this] { return probes_->PingStore(); };
  health.render_metrics = [this] { return probes_->RenderMetrics(); };
  // The operator store's connection: every non-probe route runs on one worker lane.
  services.operator_commands = operator_commands_.get();
  services.operator_queries = operator_queries_.get();
  one_off_ = std::make_unique<app::OneOffMaintenance>(operator_store_->operators());
  services.one_off = one_off_.get();
  services.maintenance = maintenance_;
  services.zones = &zones::SystemZoneRules();
  services.status = [this, built_with =
                               ExpectedPollLeases(config_)]() -> core::Result<app::ClusterStatus> {
    const auto running = poll_groups_ != nullptr ? poll_groups_->Get() : nullptr;
    auto read = app::ReadClusterStatus(operator_store_->leases(), running ? *running : built_with,
                                       clock_->Now(), settings_->Get()->poll_lease);
    if (read) read->instance = instance_;
    return read;
  };
  services.sources = [this, built_with = SourceCatalogOf(config_)] {
    text_output::SourcesAnswer answer;
    answer.now = clock_->Now();
    answer.instance = instance_;
    const auto running = catalog_ != nullptr ? catalog_->Get() : nullptr;
    answer.catalog = running ? *running : built_with;
    answer.last_cycles = last_cycles_.Snapshot();
    answer.heartbeat_configured = heartbeat_ != nullptr;
    if (heartbeat_) answer.heartbeat = heartbeat_->Stats();
    return answer;
  };
  // The callbacks check each request against the running config's secrets, reloads included.
  services.callback_commands = callback_commands_.get();
  services.callbacks = LatestCallbacks(*settings_);
  // The push inputs, on a connection of their own: an Alertmanager flush waits for no operator.
  app::PushInputOptions push_options;
  push_options.unique_suffix = [random = std::mt19937_64(std::random_device{}())]() mutable {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(random()));
    return std::string(hex);
  };
  const app::Latest<app::PushSettings>& push_settings =
      push_settings_ != nullptr ? *push_settings_ : built_push_settings_;
  push_input_ =
      std::make_unique<app::PushInput>(push_store_->incidents(), push_store_->operators(), encoder_,
                                       *clock_, push_settings, std::move(push_options));
  services.push_input = push_input_.get();
  services.push_settings = &push_settings;
  // The page's login: the token traded for a session cookie, Secure when served over https.
  sessions_ = std::make_shared<http_server::SessionStore>(*clock_, kSessionTtl);
  services.sessions = sessions_.get();
  services.secure_cookies = config_.http.public_url.starts_with("https://");
  std::vector<app::OpsRoute> routes = http_server::OpsRoutes(services);
  // With open reads, the names a request without the token may give as its Host: the
  // configured ones and the public URL's (ack links and provider callbacks arrive by it).
  std::vector<std::string> allowed_hosts = config_.http.allowed_hosts;
  if (std::string host = http_server::UrlHost(config_.http.public_url); !host.empty()) {
    allowed_hosts.push_back(std::move(host));
  }
  server_ = std::make_unique<http_server::OpsHttpServer>(
      http_server::OpsServerOptions{.listen = config_.http.listen,
                                    .token = config_.http.token,
                                    .token_name = config_.http.token_name,
                                    .open_reads = config_.http.open_reads,
                                    .threads = 4,
                                    .allowed_hosts = std::move(allowed_hosts),
                                    .sessions = sessions_},
      std::move(routes));
  return server_->Start();
}

}  // namespace quell::wiring
