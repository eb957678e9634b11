#include "quell/app/source_health_apply.h"

#include <utility>

#include "quell/app/held_decisions.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/text/time.h"

namespace quell::app {

ApplyOptions SourceHealthApplyOptions(const SourceHealthTarget& target, ApplyOptions base) {
  ApplyOptions apply = std::move(base);
  apply.policy = core::SourceHealthPolicy(target.failures_to_open, target.cooldown);
  apply.channels = target.channels;
  apply.escalation.clear();
  apply.routes.clear();
  apply.inhibited_by.clear();
  apply.grouping.clear();
  apply.tenant_budget_per_hour = 0;
  apply.shadow = target.shadow;
  apply.announce_shadow_opens = false;
  apply.source_marks.clear();
  apply.key_groups.clear();
  apply.key_groups_cutoff.reset();
  apply.record_unchanged_poll = false;
  apply.roll_back_recorded_poll = false;
  return apply;
}

SourceHealthOutcome ApplySourceHealth(core::IncidentStore& store,
                                      const core::PayloadEncoder& encoder, ApplyOptions options,
                                      const core::SourcePoll& poll, core::WallTime now,
                                      DecisionSink& sink) {
  SourceHealthOutcome outcome;
  outcome.source = poll.source;
  outcome.poll_ok = poll.ok;
  if (options.fence) {
    outcome.lease = options.fence->lease;
    outcome.token = options.fence->token;
  }
  std::vector<core::Observation> observations{core::ObserveSourcePoll(poll, now)};
  VectorObservationStream stream(observations);
  PollApplier applier(store, encoder, std::move(options));
  HeldDecisions held;
  const std::string poll_id =
      "poll-" + core::FormatRfc3339(now) + "-" + core::SourceHealthKey(poll.source);
  auto applied = applier.Apply(stream, poll_id, now, held);
  if (!applied) {
    outcome.apply_error = applied.error().message;
    outcome.fenced = applied.error().code == core::ErrorCode::kConflict &&
                     applied.error().message.starts_with(core::kFencedPrefix);
    return outcome;
  }
  outcome.applied = true;
  outcome.summary = *applied;
  // A source answering with nothing pending observes an `ignore` that writes nothing: not worth
  // a line in every poll's decisions.
  held.ForwardTo(sink, /*changed_only=*/true);
  return outcome;
}

}  // namespace quell::app
