#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "quell/app/operator_commands.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

enum class PagerAction { kAck, kResolve };

// PagerDuty retries a webhook it could not deliver for up to 48 hours, then drops it
// (developer.pagerduty.com, "Webhooks: Behavior"). An event that occurred longer ago is no
// delivery of PagerDuty's; an event id is remembered that long.
inline constexpr core::Duration kPagerDutyRetryWindow = std::chrono::hours(48);
// How long Slack's signature stays valid (channels::VerifySlackSignature's window): a click's
// trigger id is remembered that long.
inline constexpr core::Duration kSlackReplayWindow = std::chrono::minutes(5);
// The grace given to a provider's clock against ours.
inline constexpr core::Duration kCallbackClockSkew = std::chrono::minutes(1);

// One signed callback: whose, its id, and when it happened at the provider.
struct CallbackEvent {
  std::string provider;  // "pagerduty", "slack"
  std::string id;        // the provider's event id; empty: not remembered
  // When it happened: PagerDuty's occurred_at; for a click, when the clicked message was posted.
  // Nothing opened, or taken into a group message, after it (with kCallbackClockSkew) is
  // touched.
  core::WallTime occurred_at;
  core::WallTime remember_until;  // of `id`
};

// PagerDuty's webhook event `id` that occurred at `occurred_at`, received at `now`.
CallbackEvent PagerDutyEvent(std::string id, core::WallTime occurred_at, core::WallTime now);
// True when PagerDuty stopped retrying an event that occurred at `occurred_at` before `now`.
bool IsStalePagerDutyEvent(core::WallTime occurred_at, core::WallTime now);
// A Slack click (its trigger id) on a message posted at `posted_at`, received at `now`.
CallbackEvent SlackClick(std::string trigger_id, core::WallTime posted_at, core::WallTime now);

struct PagerResult {
  bool duplicate = false;         // the event was applied before: nothing changed
  std::vector<std::string> keys;  // acked or resolved, in key order
};

// A pager said an alert quell raised was acknowledged or resolved there, or a chat button was
// clicked. `callback_key` is what quell sent it (core/delivery/callback_key.h): one incident
// generation, acted on only while that generation is open; a group's alert or message, whose
// members are acted on only as the generations it carried. Nothing that opened or joined the
// group after `event.occurred_at` is touched, and a remembered event id changes nothing (see
// OperatorCommands::ApplyCallback). kNotFound when the key is none of quell's, which a caller
// answers without retrying; empty keys when nothing it names is open. Acks keep an earlier
// ack; resolves are OperatorCommands::Resolve's, by `by`.
core::Result<PagerResult> ApplyPagerAction(OperatorCommands& commands,
                                           std::string_view callback_key, PagerAction action,
                                           std::string_view by, const CallbackEvent& event,
                                           core::WallTime now);

}  // namespace quell::app
