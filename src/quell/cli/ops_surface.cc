#include "quell/cli/ops_surface.h"

#include <cstdio>
#include <random>

#include "quell/adapters/http_server/allowed_hosts.h"
#include "quell/adapters/http_server/callback_routes.h"
#include "quell/adapters/http_server/input_routes.h"
#include "quell/adapters/http_server/operator_routes.h"
#include "quell/adapters/http_server/page_routes.h"
#include "quell/adapters/http_server/session_routes.h"
#include "quell/adapters/http_server/sources_routes.h"
#include "quell/adapters/http_server/status_routes.h"
#include "quell/adapters/wiring/poll_lease_map.h"
#include "quell/adapters/wiring/poller_options_for.h"
#include "quell/adapters/wiring/source_catalog_of.h"
#include "quell/adapters/wiring/store_url.h"
#include "quell/adapters/zones/date_zone_rules.h"
#include "quell/app/health.h"
#include "quell/cli/operator_commands.h"

namespace quell::cli {
namespace {

// How long a login of the page lasts (docs/page.md): a working day and then some.
constexpr core::Duration kSessionTtl = std::chrono::hours(12);

}  // namespace

app::PushSettings PushSettingsOf(const config::Config& config) {
  app::PushSettings settings;
  settings.conditions = config.push_conditions;
  settings.poller = wiring::PollerOptionsFor(config, nullptr);
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
    const app::Latest<wiring::SurfaceSettings>& settings) {
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
  auto health_store = wiring::OpenStore(store_url);
  if (!health_store) return health_store.error();
  ops->health_store_.emplace(std::move(*health_store));
  auto operator_store = wiring::OpenStore(store_url);
  if (!operator_store) return operator_store.error();
  ops->operator_store_.emplace(std::move(*operator_store));
  core::Store& store = *ops->operator_store_;
  // Operators' resolves route with the running config's channels, reloads included, and one
  // with "upstream": true reaches Infrai with its key (refused at the call without one).
  ops->operator_commands_ = std::make_unique<app::OperatorCommands>(
      store.incidents(), store.operators(), ops->encoder_, wiring::LatestRoutes(settings));
  ops->operator_commands_->EnableUpstream(store.reports(), wiring::LatestUpstream(settings));
  ops->operator_queries_ = std::make_unique<app::OperatorQueries>(
      store.incidents(), store.operators(), wiring::LatestSeverities(settings));
  if (!config.http.ack_link_secret_unresolved.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "http: " + config.http.ack_link_secret_unresolved);
  }
  // Whether or not the config has callbacks now: a reload may add them.
  auto callback_store = wiring::OpenStore(store_url);
  if (!callback_store) return callback_store.error();
  ops->callback_store_.emplace(std::move(*callback_store));
  ops->callback_commands_ = std::make_unique<app::OperatorCommands>(
      ops->callback_store_->incidents(), ops->callback_store_->operators(), ops->encoder_,
      wiring::LatestRoutes(settings));
  auto push_store = wiring::OpenStore(store_url);
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
  app::HealthSources sources;
  sources.clock = clock_;
  sources.started_at = started_at_;
  sources.policy = settings_->Get()->liveness;
  sources.current_policy = [this] { return settings_->Get()->liveness; };
  sources.last_committed_cycle = [this] { return metrics_->LastCommitted(); };
  sources.role = role_;
  probes_ = std::make_unique<app::OpsProbes>(health_store_->incidents(), store_health_, *metrics_,
                                             registry_);
  sources.ping_store = [this] { return probes_->PingStore(); };
  sources.render_metrics = [this] { return probes_->RenderMetrics(); };
  std::vector<app::OpsRoute> routes = app::HealthRoutes(std::move(sources));
  std::vector<app::OpsRoute> operator_routes =
      http_server::OperatorRoutes(*operator_commands_, *operator_queries_, *clock_, *log_);
  routes.insert(routes.end(), std::make_move_iterator(operator_routes.begin()),
                std::make_move_iterator(operator_routes.end()));
  one_off_ = std::make_unique<app::OneOffMaintenance>(operator_store_->operators());
  std::vector<app::OpsRoute> maintenance = http_server::MaintenanceRoutes(
      *maintenance_, zones::SystemZoneRules(), *clock_, one_off_.get(), log_);
  routes.insert(routes.end(), std::make_move_iterator(maintenance.begin()),
                std::make_move_iterator(maintenance.end()));
  // The operator store's connection: every non-probe route runs on one worker lane.
  std::vector<app::OpsRoute> status = http_server::StatusRoutes(
      [this,
       built_with = wiring::ExpectedPollLeases(config_)]() -> core::Result<app::ClusterStatus> {
        const auto running = poll_groups_ != nullptr ? poll_groups_->Get() : nullptr;
        auto read =
            app::ReadClusterStatus(operator_store_->leases(), running ? *running : built_with,
                                   clock_->Now(), settings_->Get()->poll_lease);
        if (read) read->instance = instance_;
        return read;
      });
  routes.insert(routes.end(), std::make_move_iterator(status.begin()),
                std::make_move_iterator(status.end()));
  std::vector<app::OpsRoute> sources_route =
      http_server::SourcesRoutes([this, built_with = wiring::SourceCatalogOf(config_)] {
        text_output::SourcesAnswer answer;
        answer.now = clock_->Now();
        answer.instance = instance_;
        const auto running = catalog_ != nullptr ? catalog_->Get() : nullptr;
        answer.catalog = running ? *running : built_with;
        answer.last_cycles = last_cycles_.Snapshot();
        answer.heartbeat_configured = heartbeat_ != nullptr;
        if (heartbeat_) answer.heartbeat = heartbeat_->Stats();
        return answer;
      });
  routes.insert(routes.end(), std::make_move_iterator(sources_route.begin()),
                std::make_move_iterator(sources_route.end()));
  // The callbacks check each request against the running config's secrets, reloads included.
  std::vector<app::OpsRoute> callbacks = http_server::CallbackRoutes(
      *callback_commands_, *clock_, *log_, wiring::LatestCallbacks(*settings_));
  routes.insert(routes.end(), std::make_move_iterator(callbacks.begin()),
                std::make_move_iterator(callbacks.end()));
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
  std::vector<app::OpsRoute> inputs =
      http_server::InputRoutes(*push_input_, push_settings, *clock_, log_);
  routes.insert(routes.end(), std::make_move_iterator(inputs.begin()),
                std::make_move_iterator(inputs.end()));
  // The page's login: the token traded for a session cookie, Secure when served over https.
  sessions_ = std::make_shared<http_server::SessionStore>(*clock_, kSessionTtl);
  std::vector<app::OpsRoute> session = http_server::SessionRoutes(
      *sessions_, config_.http.public_url.starts_with("https://"), *log_);
  routes.insert(routes.end(), std::make_move_iterator(session.begin()),
                std::make_move_iterator(session.end()));
  // The operator page: public files that read the JSON routes above with the token.
  std::vector<app::OpsRoute> page = http_server::PageRoutes();
  routes.insert(routes.end(), std::make_move_iterator(page.begin()),
                std::make_move_iterator(page.end()));
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

}  // namespace quell::cli
