#include "quell/app/pager_callback.h"

#include <algorithm>
#include <utility>

#include "quell/core/delivery/callback_key.h"

namespace quell::app {

CallbackEvent PagerDutyEvent(std::string id, core::WallTime occurred_at, core::WallTime now) {
  // Accepted until occurred_at + window + skew (IsStalePagerDutyEvent), so remembered as long.
  return CallbackEvent{"pagerduty", std::move(id), occurred_at,
                       std::max(now, occurred_at) + kPagerDutyRetryWindow + kCallbackClockSkew};
}

bool IsStalePagerDutyEvent(core::WallTime occurred_at, core::WallTime now) {
  return occurred_at + kPagerDutyRetryWindow + kCallbackClockSkew < now;
}

CallbackEvent SlackClick(std::string trigger_id, core::WallTime posted_at, core::WallTime now) {
  return CallbackEvent{"slack", std::move(trigger_id), posted_at,
                       now + kSlackReplayWindow + kCallbackClockSkew};
}

core::Result<PagerResult> ApplyPagerAction(OperatorCommands& commands,
                                           std::string_view callback_key, PagerAction action,
                                           std::string_view by, const CallbackEvent& event,
                                           core::WallTime now) {
  const auto key = core::ParseCallbackKey(callback_key);
  if (!key) {
    return core::MakeError(core::ErrorCode::kNotFound, "dedup key \"" + std::string(callback_key) +
                                                           "\": not one of quell's dedup keys");
  }
  const core::WallTime by_then = event.occurred_at + kCallbackClockSkew;
  auto targets = commands.CallbackTargets(*key, by_then);
  if (!targets) return targets.error();
  CallbackAction apply;
  apply.targets = std::move(*targets);
  apply.resolve = action == PagerAction::kResolve;
  apply.by = std::string(by);
  apply.opened_by = by_then;
  apply.provider = event.provider;
  apply.event_id = event.id;
  apply.remember_until = event.remember_until;
  auto done = commands.ApplyCallback(apply, now);
  if (!done) return done.error();
  return PagerResult{done->duplicate, std::move(done->keys)};
}

}  // namespace quell::app
