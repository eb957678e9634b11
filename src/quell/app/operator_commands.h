#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/conditions/escalation.h"
#include "quell/core/delivery/callback_key.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/delivery/maintenance_window.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/silence.h"
#include "quell/core/ports/group_resolver.h"
#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/operator_store.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/ports/payload_encoder.h"
#include "quell/core/ports/shadow_report_store.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// Where a condition's transitions go, and what else the config says of them, so that a
// resolve by hand obeys what a poll's resolve does.
struct Route {
  std::vector<std::string> channels;
  bool shadow = false;
  // The condition picks channels per incident (`route:`): a resolve by hand goes to the
  // channels that carried the incident's current generation, and `channels` is empty.
  bool channels_from_store = false;
  // The escalation tier of each tiered channel (absent: tier 0): a tier whose time has not
  // come is not told, and the rest are checked by the dispatcher as a poll's are.
  std::map<std::string, core::TierTarget, std::less<>> tiers{};
  // The channels that group, by name: a resolve joins its group there.
  std::map<std::string, core::GroupPolicy, std::less<>> grouping{};
  // Open windows mute a resolve by hand as they mute a poll's; `zones` reads their times.
  std::vector<core::MaintenanceWindow> maintenance{};
  const core::ZoneRules* zones = nullptr;
};
// The route of `condition`; std::nullopt when it is not known (no config given, or the
// condition left it). A manual resolve then goes to the channels that carried rows of the
// incident's current generation, in shadow when all of those were shadow rows.
using RouteLookup = std::function<std::optional<Route>(std::string_view condition)>;

// The GroupResolver of `condition`'s source; null when that source cannot resolve upstream (a
// metric condition) or the condition is not known. Shared: a reload may replace the resolver
// while a resolve uses it, and the old one lives until that call is done.
using UpstreamLookup =
    std::function<std::shared_ptr<core::GroupResolver>(std::string_view condition)>;

struct ResolveOptions {
  // Bounds the hold (see core::ResolveByHand); without it the hold lasts until seen healthy.
  std::optional<core::Duration> hold_for;
  // Also resolve, at their source, the error groups that failed under the key since this
  // generation opened (every one of them, when several groups share the key).
  bool upstream = false;
};

// A provider's signed callback on a message quell sent (a pager's ack or resolve, a chat
// button's click), for OperatorCommands::ApplyCallback.
struct CallbackAction {
  // What the message named; each is touched only while it is the incident's open generation.
  std::vector<core::IncidentGeneration> targets;
  bool resolve = false;  // else ack
  std::string by;
  // A generation opened after this is left alone: the provider acted before it existed.
  core::WallTime opened_by;
  // The provider's event, remembered until `remember_until` so that its duplicate changes
  // nothing; not remembered when `event_id` is empty.
  std::string provider;
  std::string event_id;
  core::WallTime remember_until;
};

struct CallbackOutcome {
  bool duplicate = false;         // the event was remembered already: nothing changed
  std::vector<std::string> keys;  // acked or resolved, in key order
};

struct ResolveResult {
  core::Incident incident;  // as written
  // As inserted (status pending, shadow, silenced, or cancelled where the open was never live).
  std::vector<core::OutboxRow> outbox;
  std::vector<std::string> upstream_groups;  // resolved at the source, in id order
};

// The operator's use cases, shared by the CLI and the HTTP handlers. Time comes in as `now`.
// Errors: kNotFound for an unknown key, id or row (the message names it), kRejected when the
// target is in the wrong state (incident not open, row not dead), kInvalidArgument for bad
// input, and the store's own codes. Not thread-safe (the stores are one per thread).
class OperatorCommands {
 public:
  OperatorCommands(core::IncidentStore& incidents, core::OperatorStore& operators,
                   const core::PayloadEncoder& encoder, RouteLookup routes = {});

  // Lets Resolve reach the sources (ResolveOptions::upstream): `key_groups` tells which error
  // groups failed under a key, `upstream` which source resolves a condition's groups.
  void EnableUpstream(core::ShadowReportStore& key_groups, UpstreamLookup upstream);

  // Every incident in key order; only the open ones when `open_only`.
  core::Result<std::vector<core::Incident>> ListIncidents(bool open_only);

  // Acknowledges the open incident `key` (see core::Acknowledge): no cooldown renotify until
  // it opens again as a new generation. Acking an acked incident keeps the first ack. With
  // `generation` (a signed link, a chat button, a pager's callback), kRejected unless that is
  // the incident's current generation: an ack meant for an earlier outage never acks a new one.
  core::Result<core::Incident> Ack(std::string_view key, std::string_view by, core::WallTime now,
                                   std::optional<uint64_t> generation = std::nullopt);

  // Resolves the open incident `key` now, as a transition: in one transaction the incident
  // (compare-and-set, retried on a lost race), a decision line (resolve, reason manual, poll id
  // "manual-<now>-<by>") and one resolve outbox row per routed channel. Active silences apply
  // to those rows; the tenant budget does not (the operator asked for this one). The key is
  // then held resolved while its source still fails (core::ResolveByHand).
  // With `upstream`, the key's error groups are resolved at the source first, and a failure
  // there leaves the incident open (kRejected when the source cannot resolve upstream or no
  // group is recorded under the key; the source's code otherwise, naming the group).
  core::Result<ResolveResult> Resolve(std::string_view key, std::string_view by, core::WallTime now,
                                      const ResolveOptions& options = {});

  // What a callback key (core/delivery/callback_key.h) names, open now: its incident
  // generation, or the members its group message or group alert carried (an alert's: those
  // carried at or before `carried_by`), by key. A legacy group key names the members of every
  // channel's group of that key.
  core::Result<std::vector<core::IncidentGeneration>> CallbackTargets(const core::CallbackKey& key,
                                                                      core::WallTime carried_by);

  // In one transaction: remembers the provider's event (when it was already, changes nothing
  // and says so), then acks or resolves, as Ack and Resolve do, each target open at its
  // generation and opened no later than `opened_by`, skipping the others. Nothing is
  // remembered on an error (the store's codes), so the provider's retry can still apply it.
  core::Result<CallbackOutcome> ApplyCallback(const CallbackAction& action, core::WallTime now);

  // Adds a silence of `pattern` (the key itself when `match` is kExact, a key glob when kGlob)
  // until now + `duration`; returns it with its id.
  core::Result<core::Silence> AddSilence(core::SilenceMatch match, std::string pattern,
                                         core::Duration duration, std::string reason,
                                         std::string by, core::WallTime now);
  // The silences still active at `now`, by id; expired ones are left out.
  core::Result<std::vector<core::Silence>> ListSilences(core::WallTime now);
  core::Status RemoveSilence(uint64_t id);

  // The dead outbox rows, by (key, channel, generation, version).
  core::Result<std::vector<core::OutboxRow>> ListDead();
  // See core::OperatorStore::RetryDead and DropDead; only dead rows.
  core::Result<core::OutboxStatus> RetryDead(std::string_view idempotency_key, core::WallTime now);
  core::Status DropDead(std::string_view idempotency_key, core::WallTime now);
  // Every dead row (only `channel`'s when given) back to pending; see OperatorStore.
  core::Result<core::OperatorStore::RetriedRows> RetryAllDead(
      std::optional<std::string_view> channel, core::WallTime now);

 private:
  // The channels a resolve by hand of `incident` goes to, with the route (when the config
  // knows the condition) whose policy the rows obey.
  struct ResolveTargets {
    std::vector<core::ChannelUse> channels;
    std::optional<Route> route;
  };
  core::Result<ResolveTargets> ResolveChannels(const core::Incident& incident);
  core::Status ResolveOnce(std::string_view key, std::string_view by, core::WallTime now,
                           const ResolveOptions& options, ResolveResult& result);
  core::Status ResolveUpstream(std::string_view key, ResolveResult& result);
  // Writes a manual resolve of `incident` (loaded in `tx` at `expected`) to `channels`.
  core::Status WriteResolve(core::StoreTransaction& tx, core::Incident& incident, uint64_t expected,
                            std::string_view by, core::WallTime now, const ResolveOptions& options,
                            const ResolveTargets& targets, ResolveResult& result);
  core::Status ApplyCallbackOnce(const CallbackAction& action, core::WallTime now,
                                 const std::map<std::string, ResolveTargets>& routes,
                                 CallbackOutcome& outcome);

  core::IncidentStore& incidents_;
  core::OperatorStore& operators_;
  const core::PayloadEncoder& encoder_;
  RouteLookup routes_;
  core::ShadowReportStore* key_groups_ = nullptr;
  UpstreamLookup upstream_;
};

}  // namespace quell::app
