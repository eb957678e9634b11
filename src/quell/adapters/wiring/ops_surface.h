#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/adapters/curl/curl_http_client.h"
#include "quell/adapters/http_server/maintenance_routes.h"
#include "quell/adapters/http_server/ops_http_server.h"
#include "quell/adapters/http_server/session_store.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/wiring/surface_settings.h"
#include "quell/app/cluster_status.h"
#include "quell/app/health.h"
#include "quell/app/heartbeat.h"
#include "quell/app/latest.h"
#include "quell/app/metrics.h"
#include "quell/app/operator_commands.h"
#include "quell/app/operator_queries.h"
#include "quell/app/ops_probes.h"
#include "quell/app/push_input.h"
#include "quell/app/run_listener.h"
#include "quell/app/run_metrics.h"
#include "quell/app/source_catalog.h"
#include "quell/app/store_health.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"
#include "quell/core/ports/store.h"
#include "quell/core/result.h"

namespace quell::wiring {

// What the push inputs need of `config`: its push conditions, the config-wide apply settings
// and the input limits.
app::PushSettings PushSettingsOf(const config::Config& config);

// What `quell run` shows of itself: the metrics and the dead-man heartbeat (both hear the
// daemon as RunListeners), and the HTTP surface serving /healthz, /readyz, /metrics and the
// operator endpoints (the route table is http_server::OpsRoutes), over four store connections
// of its own (stores are one per thread): health probes, operator routes, provider callbacks
// and push inputs.
class OpsSurface {
 public:
  // Opens the connections and builds the listeners; the server starts with Serve.
  // `log` gets a line per operator write; GET /v1/maintenance lists `maintenance`, which the
  // daemon keeps current. Both must outlive the surface.
  // What a reload may change of the surface is read from `settings` (set by the daemon's loads,
  // reloads included; must outlive the surface) at each request.
  static core::Result<std::unique_ptr<OpsSurface>> Create(
      const config::Config& config, const std::string& store_url, core::Clock& clock,
      core::EventLog& log, const http_server::MaintenanceListing& maintenance,
      const app::Latest<SurfaceSettings>& settings);
  ~OpsSurface();
  OpsSurface(const OpsSurface&) = delete;
  OpsSurface& operator=(const OpsSurface&) = delete;

  std::vector<app::RunListener*> listeners();
  // Where the daemon stands among several instances (DaemonRuntime::Role), for /healthz. Before
  // Serve; unset: every cycle polls.
  void SetRole(std::function<std::optional<app::PollRole>()> role) { role_ = std::move(role); }
  // What GET /v1/status names: this daemon's instance id, and the poll groups of the config it
  // runs (kept current by the daemon's loads, reloads included; must outlive the surface).
  // Before Serve; unset: no id, and the groups of the config the surface was built with.
  void SetStatusSources(std::string instance,
                        const app::Latest<std::vector<app::ExpectedLease>>* poll_groups) {
    instance_ = std::move(instance);
    poll_groups_ = poll_groups;
  }
  // What GET /v1/sources lists: the running config's sources and conditions (kept current by
  // the daemon's loads; must outlive the surface). Before Serve; unset: the config's at Create.
  void SetSourceCatalog(const app::Latest<app::SourceCatalog>* catalog) { catalog_ = catalog; }
  // What the push inputs (POST /v1/inputs/alertmanager, /v1/observations) apply with: the
  // running config's push conditions (kept current by the daemon's loads; must outlive the
  // surface). Before Serve; unset: the config's at Create.
  void SetPushInputs(const app::Latest<app::PushSettings>* settings) { push_settings_ = settings; }
  // Binds the configured address and serves until destroyed; returns the bound port.
  core::Result<int> Serve();

 private:
  OpsSurface() = default;

  config::Config config_;
  core::Clock* clock_ = nullptr;
  core::EventLog* log_ = nullptr;
  const http_server::MaintenanceListing* maintenance_ = nullptr;
  const app::Latest<SurfaceSettings>* settings_ = nullptr;
  core::MonoTime started_at_;
  std::function<std::optional<app::PollRole>()> role_;
  std::string instance_;
  const app::Latest<std::vector<app::ExpectedLease>>* poll_groups_ = nullptr;
  const app::Latest<app::SourceCatalog>* catalog_ = nullptr;
  app::LastCycles last_cycles_;  // each condition's last cycle here, for GET /v1/sources
  app::MetricsRegistry registry_;
  std::unique_ptr<app::RunMetrics> metrics_;
  app::StoreHealth store_health_;  // whether the daemon's last writes went through, for /readyz
  std::unique_ptr<curl::CurlHttpClient> heartbeat_http_;
  std::unique_ptr<app::Heartbeat> heartbeat_;
  std::optional<core::Store> health_store_;  // /readyz's and /metrics', through probes_
  std::unique_ptr<app::OpsProbes> probes_;
  std::optional<core::Store> operator_store_;
  jsonl::JsonPayloadEncoder encoder_;
  std::unique_ptr<app::OperatorCommands> operator_commands_;
  std::unique_ptr<app::OperatorQueries> operator_queries_;
  std::unique_ptr<app::OneOffMaintenance> one_off_;  // on the operator store's connection
  // The callback routes' own store handle and commands (ack links, chat buttons, pagers).
  std::optional<core::Store> callback_store_;
  std::unique_ptr<app::OperatorCommands> callback_commands_;
  // The push inputs' own store connection, their settings and the input itself.
  std::optional<core::Store> push_store_;
  app::Latest<app::PushSettings> built_push_settings_;
  const app::Latest<app::PushSettings>* push_settings_ = nullptr;
  std::unique_ptr<app::PushInput> push_input_;           // answers to Slack clicks' response_url
  std::shared_ptr<http_server::SessionStore> sessions_;  // the page's logins
  std::unique_ptr<http_server::OpsHttpServer> server_;
};

}  // namespace quell::wiring
