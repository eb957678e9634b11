#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quell/app/latest.h"
#include "quell/app/poller.h"
#include "quell/core/conditions/push_condition.h"
#include "quell/core/engine/decision.h"
#include "quell/core/engine/input_limits.h"
#include "quell/core/engine/observation.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/operator_store.h"
#include "quell/core/ports/payload_encoder.h"
#include "quell/core/result.h"

namespace quell::app {

// What the push inputs need of the running config; `quell run` replaces it on every load.
struct PushSettings {
  std::vector<core::PushCondition> conditions;
  // The config-wide apply settings (wiring::PollerOptionsFor); its one_off_maintenance is not
  // called here: the one-off windows are read on the push input's own connection.
  PollerOptions poller;
  core::InputLimits limits;  // what one pushed request may hold (config `limits:`)
};

// What one pushed request did, for its answer.
struct PushSummary {
  struct Decided {
    std::string key;
    core::DecisionKind kind = core::DecisionKind::kUnknown;
    core::Reason reason = core::Reason::kNone;
  };
  std::string poll_id;
  std::string condition;
  uint64_t observations = 0;
  uint64_t changed = 0;
  uint64_t outbox_rows = 0;
  // The poll id was applied before: nothing changed (changed, outbox_rows 0, no decisions).
  bool duplicate = false;
  std::vector<Decided> decisions;  // one per observation applied, in order
};

struct PushInputOptions {
  // A fresh, unique suffix for the poll id of a request that names none (random in `quell run`).
  std::function<std::string()> unique_suffix;
};

// Applies alerts pushed to quell (POST /v1/inputs/alertmanager, POST /v1/observations) for one
// push condition of the running config: durably, in one store transaction per request
// (PollApplier with ApplyOptionsFor), unfenced (any instance may take a push; the incidents'
// compare-and-set orders them), with the configured and the operators' one-off maintenance
// windows. `store` and `operators` are one connection of the push input's own; requests are
// serialised on it. Thread-safe.
class PushInput {
 public:
  PushInput(core::IncidentStore& store, core::OperatorStore& operators,
            const core::PayloadEncoder& encoder, core::Clock& clock,
            const Latest<PushSettings>& settings, PushInputOptions options);

  // The alerts of one Alertmanager or Grafana webhook request for the push condition named
  // `condition`, or the only one when `condition` is empty. kInvalidArgument "condition: ..."
  // for an unknown name, or no name and not exactly one push condition; "alerts[i].labels.x:
  // missing, ..." for an alert without a field the key needs (core::CheckKeyFields), nothing
  // applied; the store's codes.
  core::Result<PushSummary> ApplyAlerts(std::string_view condition,
                                        std::span<const core::PushedAlert> alerts);

  // quell's own observations of one request: each names a push condition (the same one: a
  // request is one transaction, and one PollApplier run applies one condition's policy), a
  // missing key is rendered from the condition's key template over the labels. A `poll_id`
  // applied before changes nothing (duplicate); empty: a fresh one. kInvalidArgument naming
  // "observations[i].condition", "observations[i].labels.x" (a label the key needs, missing
  // from an observation without a key) or "poll_id"; the store's codes.
  core::Result<PushSummary> ApplyObservations(std::vector<core::Observation> observations,
                                              std::string_view poll_id);

 private:
  core::Result<PushSummary> Apply(const PushSettings& settings,
                                  const core::PushCondition& condition,
                                  std::vector<core::Observation> observations, std::string poll_id,
                                  core::WallTime now);

  core::IncidentStore& store_;
  core::OperatorStore& operators_;
  const core::PayloadEncoder& encoder_;
  core::Clock& clock_;
  const Latest<PushSettings>& settings_;
  PushInputOptions options_;
  std::mutex mu_;  // one request at a time on the connection
};

}  // namespace quell::app
