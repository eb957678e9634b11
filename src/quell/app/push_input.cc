#include "quell/app/push_input.h"

#include <utility>

#include "quell/app/apply_options_for.h"
#include "quell/app/one_off_maintenance.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"

namespace quell::app {
namespace {

constexpr size_t kMaxPollIdBytes = 200;

core::Error Invalid(std::string message) {
  return core::MakeError(core::ErrorCode::kInvalidArgument, std::move(message));
}

std::string Names(const std::vector<core::PushCondition>& conditions) {
  std::string out;
  for (const core::PushCondition& c : conditions) {
    if (!out.empty()) out += ", ";
    out += c.common.name;
  }
  return out.empty() ? "none is configured" : "push conditions: " + out;
}

const core::PushCondition* Find(const PushSettings& settings, std::string_view name) {
  for (const core::PushCondition& c : settings.conditions) {
    if (c.common.name == name) return &c;
  }
  return nullptr;
}

// A poll id a sender chose is stored and shown: printable ASCII without spaces, bounded.
core::Status CheckPollId(std::string_view id) {
  if (id.size() > kMaxPollIdBytes) {
    return Invalid("poll_id: longer than " + std::to_string(kMaxPollIdBytes) + " bytes");
  }
  for (const char c : id) {
    if (c <= ' ' || c > '~') return Invalid("poll_id: only printable ASCII without spaces");
  }
  return {};
}

// Decisions are only shown once the request's transaction committed.
class CollectedDecisions : public DecisionSink {
 public:
  void OnDecision(const core::Observation& observation, const core::Decision& decision) override {
    decisions.push_back({observation.key, decision.kind, decision.reason});
  }
  void Reset() override { decisions.clear(); }
  std::vector<PushSummary::Decided> decisions;
};

}  // namespace

PushInput::PushInput(core::IncidentStore& store, core::OperatorStore& operators,
                     const core::PayloadEncoder& encoder, core::Clock& clock,
                     const Latest<PushSettings>& settings, PushInputOptions options)
    : store_(store),
      operators_(operators),
      encoder_(encoder),
      clock_(clock),
      settings_(settings),
      options_(std::move(options)) {}

core::Result<PushSummary> PushInput::ApplyAlerts(std::string_view condition,
                                                 std::span<const core::PushedAlert> alerts) {
  const std::shared_ptr<const PushSettings> settings = settings_.Get();
  const core::PushCondition* target = nullptr;
  if (condition.empty()) {
    if (settings->conditions.size() != 1) {
      return Invalid("condition: name the push condition (?condition=NAME); " +
                     Names(settings->conditions));
    }
    target = &settings->conditions.front();
  } else {
    target = Find(*settings, condition);
    if (target == nullptr) {
      return Invalid("condition: no push condition named \"" + std::string(condition) + "\" (" +
                     Names(settings->conditions) + ")");
    }
  }
  // Before anything is applied: a request is taken whole or not at all.
  if (auto keyed = core::CheckKeyFields(*target, alerts); !keyed) return keyed.error();
  const std::lock_guard<std::mutex> lock(mu_);
  const core::WallTime now = clock_.Now();
  std::vector<core::Observation> observations = core::ObservePushedAlerts(*target, alerts, now);
  return Apply(*settings, *target, std::move(observations), "", now);
}

core::Result<PushSummary> PushInput::ApplyObservations(std::vector<core::Observation> observations,
                                                       std::string_view poll_id) {
  if (auto status = CheckPollId(poll_id); !status) return status.error();
  const std::shared_ptr<const PushSettings> settings = settings_.Get();
  const core::PushCondition* target = nullptr;
  for (size_t i = 0; i < observations.size(); ++i) {
    core::Observation& o = observations[i];
    const std::string field = "observations[" + std::to_string(i) + "].condition";
    if (o.condition.empty()) {
      return Invalid(field + ": missing; name a push condition (" + Names(settings->conditions) +
                     ")");
    }
    const core::PushCondition* named = Find(*settings, o.condition);
    if (named == nullptr) {
      return Invalid(field + ": no push condition named \"" + o.condition + "\" (" +
                     Names(settings->conditions) + ")");
    }
    if (target != nullptr && named != target) {
      return Invalid(field + ": \"" + o.condition + "\" differs from \"" + target->common.name +
                     "\" before it; a request applies to one condition (send one per condition)");
    }
    target = named;
    if (o.key.empty()) {
      const core::KeyTemplate::Lookup lookup =
          [&o](std::string_view name) -> std::optional<std::string_view> {
        if (name.starts_with("labels.")) return core::FindLabel(o.labels, name.substr(7));
        return std::nullopt;
      };
      if (const auto missing = target->key.MissingField(lookup)) {
        return Invalid("observations[" + std::to_string(i) + "]." + *missing +
                       ": missing, the key template \"" + target->key.text() +
                       "\" needs it (or give the observation its key)");
      }
      o.key = target->key.Render(lookup);
    }
    o.first_seen_at.reset();
    o.expire = false;  // only the sweep expires
  }
  if (target == nullptr) return Invalid("observations: none in the body");
  const std::lock_guard<std::mutex> lock(mu_);
  const core::WallTime now = clock_.Now();
  return Apply(*settings, *target, std::move(observations), std::string(poll_id), now);
}

core::Result<PushSummary> PushInput::Apply(const PushSettings& settings,
                                           const core::PushCondition& condition,
                                           std::vector<core::Observation> observations,
                                           std::string poll_id, core::WallTime now) {
  std::vector<core::MaintenanceWindow> maintenance = settings.poller.maintenance;
  auto one_off = operators_.ListOneOffWindows(now - kOneOffListedFor);
  if (!one_off) return one_off.error();
  for (const core::OneOffWindow& window : *one_off) {
    maintenance.push_back(AsMaintenanceWindow(window));
  }
  ApplyOptions apply = ApplyOptionsFor(condition.common, settings.poller, maintenance);
  // As a poll does: the first live apply after shadow mode announces the opens it kept quiet.
  const std::string shadow_mark = ShadowMarkName(condition.common.name);
  auto mode = store_.GetSourceMark(shadow_mark);
  if (!mode) return mode.error();
  const char* now_mode = condition.common.shadow ? "on" : "off";
  if (*mode != now_mode) {
    apply.source_marks.emplace_back(shadow_mark, now_mode);
    apply.announce_shadow_opens = !condition.common.shadow;
  }
  const bool chosen_id = !poll_id.empty();
  if (!chosen_id) {
    poll_id = "push-" + core::FormatRfc3339(now) + "-" + condition.common.name;
    if (options_.unique_suffix) poll_id += "-" + options_.unique_suffix();
  }
  // Every request is recorded, so its poll id is what makes a retry a duplicate.
  apply.record_unchanged_poll = true;
  apply.roll_back_recorded_poll = true;
  PollApplier applier(store_, encoder_, std::move(apply));
  VectorObservationStream stream(observations);
  CollectedDecisions collected;
  auto applied = applier.Apply(stream, poll_id, now, collected);
  if (!applied) return applied.error();
  PushSummary summary;
  summary.poll_id = std::move(poll_id);
  summary.condition = condition.common.name;
  summary.observations = observations.size();
  summary.duplicate = applied->duplicate;
  if (!applied->duplicate) {
    summary.changed = applied->poll.changed;
    summary.outbox_rows = applied->poll.outbox_rows;
    summary.decisions = std::move(collected.decisions);
  }
  return summary;
}

}  // namespace quell::app
