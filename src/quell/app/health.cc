#include "quell/app/health.h"

#include <chrono>
#include <memory>
#include <utility>

#include "quell/app/metrics.h"
#include "quell/core/text/json_escape.h"

namespace quell::app {
namespace {

void AppendSeconds(std::string& out, core::Duration d) {
  AppendMetricValue(out, std::chrono::duration<double>(d).count());
}

OpsResponse Json(int status, std::string body) {
  OpsResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

}  // namespace

core::Duration LivenessLimit(const LivenessPolicy& policy) {
  return 2 * policy.interval + policy.poll_deadline + policy.grace;
}

OpsResponse LivenessVerdict(std::optional<core::WallTime> last_committed_cycle, core::Duration age,
                            const LivenessPolicy& policy) {
  const core::Duration limit = LivenessLimit(policy);
  const bool ok = age <= limit;
  std::string reason;
  if (last_committed_cycle) {
    reason = ok ? "the last committed cycle is recent"
                : "no cycle has committed for longer than the limit: the poll loop is stuck or "
                  "the store refuses its writes";
  } else {
    reason = ok ? "starting: no committed cycle yet" : "no cycle committed since start-up";
  }
  std::string body = R"({"status":)";
  body.append(ok ? R"("ok")" : R"("stale")").append(R"(,"reason":)");
  core::AppendJsonString(body, reason);
  body.append(R"(,"last_committed_cycle":)");
  if (last_committed_cycle) {
    core::AppendJsonString(body, core::FormatRfc3339(*last_committed_cycle));
  } else {
    body.append("null");
  }
  body.append(R"(,"age_seconds":)");
  AppendSeconds(body, age);
  body.append(R"(,"limit_seconds":)");
  AppendSeconds(body, limit);
  body.append(R"(,"role":"polling"})");
  return Json(ok ? 200 : 503, std::move(body));
}

OpsResponse StandbyVerdict(core::Duration age, const LivenessPolicy& policy) {
  const core::Duration limit = LivenessLimit(policy);
  const bool ok = age <= limit;
  std::string body = R"({"status":)";
  body.append(ok ? R"("ok")" : R"("stale")").append(R"(,"reason":)");
  core::AppendJsonString(body, ok ? "standby: other instances hold every poll lease, and this "
                                    "one's lease keeper reaches the store to take over"
                                  : "standby: the lease keeper has not reached the store for "
                                    "longer than the limit, so it cannot take over");
  body.append(R"(,"keeper_age_seconds":)");
  AppendSeconds(body, age);
  body.append(R"(,"limit_seconds":)");
  AppendSeconds(body, limit);
  body.append(R"(,"role":"standby"})");
  return Json(ok ? 200 : 503, std::move(body));
}

OpsResponse ReadinessVerdict(const core::Status& store_ping) {
  if (store_ping) return Json(200, R"({"status":"ready"})");
  std::string body = R"({"status":"unready","reason":)";
  core::AppendJsonString(body, "store: " + store_ping.error().message);
  body.append("}");
  return Json(503, std::move(body));
}

std::vector<OpsRoute> HealthRoutes(HealthSources sources) {
  auto s = std::make_shared<const HealthSources>(std::move(sources));
  std::vector<OpsRoute> routes;
  // The probes are public: a supervisor asks them without a secret, and they tell nothing
  // about incidents. /metrics names conditions and channels, so it follows open_reads.
  routes.push_back(OpsRoute{
      .method = "GET",
      .pattern = "/healthz",
      .write = false,
      .handler =
          [s](const OpsRequest&) {
            const LivenessPolicy policy = s->current_policy ? s->current_policy() : s->policy;
            const std::optional<PollRole> role = s->role ? s->role() : std::nullopt;
            if (role && !role->polling) {
              // Before its keeper's first answer, the start-up is the baseline, as for cycles.
              const core::MonoTime reached = role->reached_store.value_or(s->started_at);
              return StandbyVerdict(s->clock->Monotonic() - reached, policy);
            }
            const auto last = s->last_committed_cycle();
            core::MonoTime since = last ? last->mono : s->started_at;
            // A standby that just took over has its first interval to commit, as at start-up.
            if (role && role->polling_since && *role->polling_since > since) {
              since = *role->polling_since;
            }
            const core::Duration age = s->clock->Monotonic() - since;
            return LivenessVerdict(last ? std::optional(last->at) : std::nullopt, age, policy);
          },
      .is_public = true});
  routes.push_back(
      OpsRoute{.method = "GET",
               .pattern = "/readyz",
               .write = false,
               .handler = [s](const OpsRequest&) { return ReadinessVerdict(s->ping_store()); },
               .is_public = true});
  routes.push_back(OpsRoute{
      .method = "GET", .pattern = "/metrics", .write = false, .handler = [s](const OpsRequest&) {
        OpsResponse response;
        response.content_type = kMetricsContentType;
        response.body = s->render_metrics();
        return response;
      }});
  return routes;
}

}  // namespace quell::app
