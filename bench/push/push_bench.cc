// Pushed alerts (bench/push/run): POST /v1/inputs/alertmanager through the real route handler
// (http_server::InputRoutes over app::PushInput, a real SQLite file or PostgreSQL), beside a
// ceiling measured in the same run on the same store: the same alerts, parsed beforehand into
// the same observations, applied by app::PollApplier alone (one transaction, nothing parsed,
// no answer written). The ratio is what taking alerts over HTTP costs above the durable apply:
// parsing and redacting the payload, the one-off windows read, the poll-id check, the answer.
//
//   push_bench --backend sqlite|postgres [--url URL] [--dir DIR] [--reps 20]
//
// Cases, each for requests of 1, 100 and 1000 alerts: "open" pushes keys never seen (each opens
// an incident and writes an outbox row), "refresh" pushes the same firing keys again (what
// Alertmanager's repeat_interval sends: evidence and counts updated, nothing sent). Prints one
// line per case: median and p95 of --reps requests, alerts per second, the ratio to the ceiling.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "quell/adapters/http_server/input_routes.h"
#include "quell/adapters/inputs/alertmanager_payload.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/system/system_clock.h"
#include "quell/adapters/wiring/store_url.h"
#include "quell/app/apply_options_for.h"
#include "quell/app/poll_applier.h"
#include "quell/app/push_input.h"
#include "quell/app/vector_observation_stream.h"

namespace {

namespace core = quell::core;
namespace app = quell::app;
using Steady = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "push_bench: %s\n", message.c_str());
  std::exit(1);  // NOLINT(concurrency-mt-unsafe): a bench stops at its first failure
}

struct Flags {
  std::string backend = "sqlite";
  std::string url;
  std::string dir = "/tmp";
  size_t reps = 20;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    const std::string value = argv[i + 1];
    if (name == "--backend") {
      f.backend = value;
    } else if (name == "--url") {
      f.url = value;
    } else if (name == "--dir") {
      f.dir = value;
    } else if (name == "--reps") {
      f.reps = std::stoul(value);
    } else {
      Die("unknown flag " + name);
    }
  }
  if (f.backend == "postgres" && f.url.empty()) Die("--backend postgres needs --url");
  return f;
}

// An Alertmanager payload of `n` firing alerts, tenants <prefix><first>..<prefix><first+n-1>.
std::string Payload(const std::string& prefix, size_t first, size_t n) {
  std::string body = R"({"version":"4","status":"firing","receiver":"quell","alerts":[)";
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) body += ',';
    body += R"({"status":"firing","labels":{"alertname":"HighErrorRate","severity":"critical",)";
    body +=
        R"("tenant":")" + prefix + std::to_string(first + i) + R"("},"annotations":{"summary":)";
    body += R"("checkout 5xx above 5%"},"startsAt":"2026-12-04T09:00:00Z",)";
    body += R"("generatorURL":"http://prometheus:9090/graph?g0.expr=errors",)";
    body += R"("fingerprint":"c0ffee)" + std::to_string(first + i) + R"("})";
  }
  return body + "]}";
}

// The same alerts as the route makes them (parsed by the same parser, so the same labels and
// redacted evidence), for the ceiling; the parsing is not timed there.
std::vector<core::Observation> Observations(const core::PushCondition& condition, size_t first,
                                            size_t n, core::WallTime now) {
  auto alerts = quell::inputs::ParseAlertmanagerPayload(Payload("u", first, n), {});
  if (!alerts) Die(alerts.error().message);
  return core::ObservePushedAlerts(condition, *alerts, now);
}

// The ceiling's decisions are not looked at.
class NullSink : public app::DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision&) override {}
  void Reset() override {}
};

struct Timing {
  double median_ms = 0;
  double p95_ms = 0;
};

Timing Summarise(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 95 / 100)]};
}

void Print(const Flags& f, const char* what, size_t n, const Timing& t, const Timing& ceiling) {
  std::printf("%-8s %-8s %5zu alerts: median %8.2f ms  p95 %8.2f ms  %9.0f alerts/s  x%.2f\n",
              f.backend.c_str(), what, n, t.median_ms, t.p95_ms, 1000.0 * double(n) / t.median_ms,
              t.median_ms / ceiling.median_ms);
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = ParseFlags(argc, argv);
  std::string url = f.url;
  std::filesystem::path file;
  if (f.backend == "sqlite") {
    file = std::filesystem::path(f.dir) / ("push-bench-" + std::to_string(::getpid()) + ".db");
    url = "sqlite:" + file.string();
  }
  auto route_store = quell::wiring::OpenStore(url);
  if (!route_store) Die(route_store.error().message);
  auto ceiling_store = quell::wiring::OpenStore(url);
  if (!ceiling_store) Die(ceiling_store.error().message);

  quell::system::SystemClock clock;
  quell::jsonl::JsonPayloadEncoder encoder;
  auto key = core::KeyTemplate::Parse("{labels.tenant}:{labels.alertname}");
  if (!key) Die(key.error().message);
  core::PushCondition condition;
  condition.common.name = "bench-push";
  condition.common.channels = {"hook"};
  condition.key = *key;
  app::PushSettings settings;
  settings.conditions = {condition};
  app::Latest<app::PushSettings> latest;
  latest.Set(settings);
  size_t suffix = 0;
  app::PushInput input(route_store->incidents(), route_store->operators(), encoder, clock, latest,
                       {.unique_suffix = [&suffix] { return std::to_string(++suffix); }});
  const std::vector<app::OpsRoute> routes = quell::http_server::InputRoutes(input, latest, clock);
  const app::OpsRoute& alertmanager = routes.at(0);

  std::printf("backend %s, %zu requests per case\n", f.backend.c_str(), f.reps);
  size_t next_tenant = 0;
  for (const size_t n : {size_t{1}, size_t{100}, size_t{1000}}) {
    // The ceiling first: PollApplier alone, fresh keys per request, then the same keys again.
    std::vector<double> ceiling_open;
    std::vector<double> ceiling_refresh;
    const size_t ceiling_first = next_tenant;
    for (size_t r = 0; r < f.reps; ++r) {
      for (const bool refresh : {false, true}) {
        const core::WallTime now = clock.Now();
        std::vector<core::Observation> observations =
            Observations(condition, refresh ? ceiling_first : next_tenant, n, now);
        app::PollApplier applier(ceiling_store->incidents(), encoder,
                                 app::ApplyOptionsFor(condition.common, settings.poller, {}));
        app::VectorObservationStream stream(observations);
        NullSink sink;
        const auto start = Steady::now();
        auto applied = applier.Apply(stream, "ceiling-" + std::to_string(++suffix), now, sink);
        const double ms = std::chrono::duration<double, std::milli>(Steady::now() - start).count();
        if (!applied) Die(applied.error().message);
        (refresh ? ceiling_refresh : ceiling_open).push_back(ms);
      }
      next_tenant += n;
    }
    // The route: the real handler, a payload parsed, applied, answered.
    std::vector<double> route_open;
    std::vector<double> route_refresh;
    const size_t route_first = next_tenant;
    for (size_t r = 0; r < f.reps; ++r) {
      for (const bool refresh : {false, true}) {
        app::OpsRequest request;
        request.method = "POST";
        request.path = "/v1/inputs/alertmanager";
        request.body = Payload("t", refresh ? route_first : next_tenant, n);
        request.actor = "bench";
        const auto start = Steady::now();
        const app::OpsResponse response = alertmanager.handler(request);
        const double ms = std::chrono::duration<double, std::milli>(Steady::now() - start).count();
        if (response.status != 200) Die("route answered " + response.body);
        (refresh ? route_refresh : route_open).push_back(ms);
      }
      next_tenant += n;
    }
    const Timing open = Summarise(ceiling_open);
    const Timing refresh = Summarise(ceiling_refresh);
    Print(f, "ceiling", n, open, open);
    Print(f, "open", n, Summarise(route_open), open);
    Print(f, "ceiling", n, refresh, refresh);
    Print(f, "refresh", n, Summarise(route_refresh), refresh);
  }
  if (!file.empty()) {
    std::error_code ignored;
    for (const char* tail : {"", "-wal", "-shm"}) {
      std::filesystem::remove(file.string() + tail, ignored);
    }
  }
  return 0;
}
