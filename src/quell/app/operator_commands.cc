#include "quell/app/operator_commands.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "quell/app/follow_up_rules.h"
#include "quell/core/engine/operator_actions.h"

namespace quell::app {
namespace {

constexpr int kMaxAttempts = 5;  // compare-and-set retries against a concurrent poll

core::Error NoIncident(std::string_view key) {
  return core::MakeError(core::ErrorCode::kNotFound,
                         "no incident with key \"" + std::string(key) + "\"");
}

core::Error NotOpen(const core::Incident& incident) {
  return core::MakeError(core::ErrorCode::kRejected, "incident \"" + incident.key + "\" is " +
                                                         core::IncidentStatusName(incident.status) +
                                                         ", not open");
}

// Loads `key` under the transaction's lock; kNotFound when it has no row.
core::Result<core::Incident> LoadOne(core::StoreTransaction& tx, std::string_view key) {
  const std::string keys[] = {std::string(key)};
  std::vector<core::Incident> loaded;
  if (auto status = tx.LoadIncidents(keys, loaded); !status) return status.error();
  if (loaded.empty()) return NoIncident(key);
  return std::move(loaded.front());
}

// Writes an ack of `incident` (Acknowledge applied, loaded in `tx` at `expected`). The ack
// stops the climb: escalation tiers not yet paged never are (in this transaction, so no tier
// can slip out between the ack and the cancel).
core::Status WriteAck(core::StoreTransaction& tx, const core::Incident& incident, uint64_t expected,
                      core::WallTime now) {
  const core::IncidentWrite writes[] = {{incident, expected}};
  if (auto status = tx.PutIncidents(writes); !status) return status;
  const std::pair<std::string, uint64_t> generation_of[] = {{incident.key, incident.generation}};
  auto cancelled = tx.CancelTierOpens(generation_of, now);
  if (!cancelled) return cancelled.error();
  return {};
}

}  // namespace

OperatorCommands::OperatorCommands(core::IncidentStore& incidents, core::OperatorStore& operators,
                                   const core::PayloadEncoder& encoder, RouteLookup routes)
    : incidents_(incidents), operators_(operators), encoder_(encoder), routes_(std::move(routes)) {}

void OperatorCommands::EnableUpstream(core::ShadowReportStore& key_groups,
                                      UpstreamLookup upstream) {
  key_groups_ = &key_groups;
  upstream_ = std::move(upstream);
}

core::Result<std::vector<core::Incident>> OperatorCommands::ListIncidents(bool open_only) {
  auto all = incidents_.ListIncidents();
  if (!all || !open_only) return all;
  std::vector<core::Incident> open;
  for (core::Incident& incident : *all) {
    if (incident.is_open()) open.push_back(std::move(incident));
  }
  return open;
}

core::Result<core::Incident> OperatorCommands::Ack(std::string_view key, std::string_view by,
                                                   core::WallTime now,
                                                   std::optional<uint64_t> generation) {
  for (int attempt = 1;; ++attempt) {
    auto begun = incidents_.Begin();
    if (!begun) return begun.error();
    core::StoreTransaction& tx = **begun;
    auto incident = LoadOne(tx, key);
    if (!incident) return incident.error();
    if (generation && *generation != incident->generation) {
      return core::MakeError(core::ErrorCode::kRejected,
                             "incident \"" + std::string(key) + "\" is at generation " +
                                 std::to_string(incident->generation) + ", not " +
                                 std::to_string(*generation) +
                                 ": the ack was for an earlier "
                                 "outage");
    }
    const uint64_t expected = incident->version;
    switch (core::Acknowledge(*incident, now, by)) {
      case core::AckOutcome::kNotOpen:
        return NotOpen(*incident);
      case core::AckOutcome::kAlreadyAcked:
        return std::move(*incident);
      case core::AckOutcome::kAcked:
        break;
    }
    core::Status status = WriteAck(tx, *incident, expected, now);
    if (status) status = tx.Commit();
    if (status) return std::move(*incident);
    if (status.error().code != core::ErrorCode::kConflict || attempt >= kMaxAttempts) {
      return status.error();
    }
  }
}

core::Result<OperatorCommands::ResolveTargets> OperatorCommands::ResolveChannels(
    const core::Incident& incident) {
  ResolveTargets targets;
  if (routes_) targets.route = routes_(incident.condition);
  if (targets.route && !targets.route->channels_from_store) {
    for (const std::string& channel : targets.route->channels) {
      targets.channels.push_back(core::ChannelUse{channel, targets.route->shadow});
    }
    return targets;
  }
  auto stored = operators_.GenerationChannels(incident.key, incident.generation);
  if (!stored) return stored.error();
  targets.channels = std::move(*stored);
  return targets;
}

core::Status OperatorCommands::ResolveUpstream(std::string_view key, ResolveResult& result) {
  auto snapshot = incidents_.FindIncident(key);
  if (!snapshot) return snapshot.error();
  if (!*snapshot) return NoIncident(key);
  const core::Incident& incident = **snapshot;
  if (!incident.is_open()) return NotOpen(incident);
  const std::shared_ptr<core::GroupResolver> resolver =
      upstream_ ? upstream_(incident.condition) : nullptr;
  if (resolver == nullptr || key_groups_ == nullptr) {
    return core::MakeError(core::ErrorCode::kRejected,
                           "--upstream: incident \"" + incident.key + "\" comes from condition \"" +
                               incident.condition +
                               "\", whose source cannot resolve upstream (only Infrai error-group"
                               " conditions of the config can); resolve it without --upstream");
  }
  const core::WallTime since = incident.opened_at.value_or(core::WallTime{});
  auto rows = key_groups_->KeyGroupsSince(since);
  if (!rows) return rows.error();
  std::vector<std::string> groups;
  for (const core::KeyGroupRow& row : *rows) {
    if (row.key == incident.key) groups.push_back(row.group_id);
  }
  if (groups.empty()) {
    return core::MakeError(core::ErrorCode::kRejected,
                           "--upstream: no error group is recorded under \"" + incident.key +
                               "\" since it opened; nothing to resolve upstream");
  }
  std::string done;
  for (const std::string& group : groups) {
    if (auto status = resolver->ResolveGroup(group); !status) {
      std::string message = "--upstream: error group \"" + group + "\": " + status.error().message +
                            "; the incident is left open";
      if (!done.empty()) message += " (resolved upstream already: " + done + ")";
      return core::MakeError(status.error().code, message);
    }
    done += (done.empty() ? "" : ", ") + group;
  }
  result.upstream_groups = std::move(groups);
  return {};
}

core::Status OperatorCommands::ResolveOnce(std::string_view key, std::string_view by,
                                           core::WallTime now, const ResolveOptions& options,
                                           ResolveResult& result) {
  // The routes are read before the transaction; the generation is checked again under the
  // lock, and a poll that reopened the key in between makes this attempt a conflict.
  auto snapshot = incidents_.FindIncident(key);
  if (!snapshot) return snapshot.error();
  if (!*snapshot) return NoIncident(key);
  if (!(*snapshot)->is_open()) return NotOpen(**snapshot);
  auto channels = ResolveChannels(**snapshot);
  if (!channels) return channels.error();

  auto begun = incidents_.Begin();
  if (!begun) return begun.error();
  core::StoreTransaction& tx = **begun;
  auto incident = LoadOne(tx, key);
  if (!incident) return incident.error();
  if (incident->generation != (*snapshot)->generation) {
    return core::MakeError(core::ErrorCode::kConflict, "incident reopened meanwhile");
  }
  if (auto status =
          WriteResolve(tx, *incident, incident->version, by, now, options, *channels, result);
      !status) {
    return status;
  }
  if (auto status = tx.Commit(); !status) return status;
  result.incident = std::move(*incident);
  return {};
}

core::Status OperatorCommands::WriteResolve(core::StoreTransaction& tx, core::Incident& incident,
                                            uint64_t expected, std::string_view by,
                                            core::WallTime now, const ResolveOptions& options,
                                            const ResolveTargets& targets, ResolveResult& result) {
  const core::Decision decision = core::ResolveByHand(incident, now, options.hold_for);
  if (!decision.changed) return NotOpen(incident);
  auto silences = tx.LoadActiveSilences(now);
  if (!silences) return silences.error();

  const core::IncidentWrite writes[] = {{incident, expected}};
  if (auto status = tx.PutIncidents(writes); !status) return status;
  const core::DecisionRecord log[] = {
      {incident.key, decision.generation, decision.version, now, decision.kind, decision.reason}};
  const std::string poll_id = "manual-" + core::FormatRfc3339(now) + "-" + std::string(by);
  if (auto status = tx.AppendDecisions(poll_id, log); !status) return status;

  result.outbox.clear();
  const bool silenced = core::IsSilenced(*silences, incident.key, now);
  const Route* route = targets.route ? &*targets.route : nullptr;
  // Silences first, then maintenance, as for a poll's resolve; inhibition holds only what a
  // poll sends (an operator's resolve of a held incident is theirs to make).
  bool muted = false;
  if (!silenced && route != nullptr && route->zones != nullptr && !route->maintenance.empty()) {
    auto window = core::ActiveWindowFor(route->maintenance, *route->zones, incident.key,
                                        incident.labels, now);
    if (!window) return window.error();
    muted = *window != nullptr;
  }
  for (const core::ChannelUse& use : targets.channels) {
    core::TierTarget target{use.channel, 0, core::Duration::zero()};
    if (route != nullptr) {
      if (const auto tier = route->tiers.find(use.channel); tier != route->tiers.end()) {
        target = tier->second;
      }
    }
    // A tier whose time had not come was never paged: it hears nothing of the end either.
    if (!core::TierDue(target, incident.opened_at, now)) continue;
    core::OutboxRow row;
    row.tier = target.tier;
    row.idempotency_key = core::OutboxIdempotencyKey(incident.key, decision.generation,
                                                     decision.version, use.channel);
    row.key = incident.key;
    row.generation = decision.generation;
    row.version = decision.version;
    row.transition = core::TransitionKind::kResolve;
    row.channel = use.channel;
    encoder_.Encode(incident, core::TransitionKind::kResolve, row.payload);
    if (use.shadow_only) {
      row.status = core::OutboxStatus::kShadow;
    } else if (silenced) {
      row.status = core::OutboxStatus::kSilenced;
    } else if (muted) {
      row.status = core::OutboxStatus::kMuted;
    } else if (route != nullptr) {
      if (const auto policy = route->grouping.find(use.channel); policy != route->grouping.end()) {
        row.status = core::OutboxStatus::kGrouped;
        row.group_key = core::GroupKeyOf(policy->second, incident.condition, incident.labels);
      }
    }
    row.next_attempt_at = now;
    row.created_at = now;
    row.updated_at = now;
    result.outbox.push_back(std::move(row));
  }
  // Pending tiers are cancelled, and only the channels that got the open hear the resolve.
  if (auto cancelled = CancelUnwantedFollowUps(tx, result.outbox, now); !cancelled) {
    return cancelled.error();
  }
  return tx.InsertOutbox(result.outbox);
}

core::Result<std::vector<core::IncidentGeneration>> OperatorCommands::CallbackTargets(
    const core::CallbackKey& key, core::WallTime carried_by) {
  switch (key.kind) {
    case core::CallbackKey::Kind::kIncident:
      return std::vector<core::IncidentGeneration>{{key.key, key.generation}};
    case core::CallbackKey::Kind::kGroupMessage:
      return operators_.OpenMembersOfMessage(key.group_row);
    case core::CallbackKey::Kind::kGroupAlert:
      return operators_.OpenMembersOfGroup(key.channel, key.group_key, key.episode, carried_by);
    case core::CallbackKey::Kind::kLegacyGroup:
      return operators_.OpenMembersOfGroup("", key.group_key, std::nullopt, carried_by);
  }
  return std::vector<core::IncidentGeneration>{};
}

core::Result<CallbackOutcome> OperatorCommands::ApplyCallback(const CallbackAction& action,
                                                              core::WallTime now) {
  // A resolve's channels are read before the transaction, as Resolve reads them; a target
  // that changed generation meanwhile is not open at its generation in the transaction.
  std::map<std::string, ResolveTargets> routes;
  if (action.resolve) {
    for (const core::IncidentGeneration& target : action.targets) {
      auto snapshot = incidents_.FindIncident(target.key);
      if (!snapshot) return snapshot.error();
      if (!*snapshot || (*snapshot)->generation != target.generation) continue;
      auto channels = ResolveChannels(**snapshot);
      if (!channels) return channels.error();
      routes[target.key] = std::move(*channels);
    }
  }
  for (int attempt = 1;; ++attempt) {
    CallbackOutcome outcome;
    core::Status status = ApplyCallbackOnce(action, now, routes, outcome);
    if (status) return outcome;
    if (status.error().code != core::ErrorCode::kConflict || attempt >= kMaxAttempts) {
      return status.error();
    }
  }
}

core::Status OperatorCommands::ApplyCallbackOnce(
    const CallbackAction& action, core::WallTime now,
    const std::map<std::string, ResolveTargets>& routes, CallbackOutcome& outcome) {
  auto begun = incidents_.Begin();
  if (!begun) return begun.error();
  core::StoreTransaction& tx = **begun;
  if (!action.event_id.empty()) {
    auto fresh =
        tx.RememberCallbackEvent(action.provider, action.event_id, now, action.remember_until);
    if (!fresh) return fresh.error();
    if (!*fresh) {
      outcome.duplicate = true;
      return {};  // rolled back: the duplicate changes nothing
    }
  }
  for (const core::IncidentGeneration& target : action.targets) {
    auto incident = LoadOne(tx, target.key);
    if (!incident) {
      if (incident.error().code == core::ErrorCode::kNotFound) continue;
      return incident.error();
    }
    if (!incident->is_open() || incident->generation != target.generation ||
        (incident->opened_at && *incident->opened_at > action.opened_by)) {
      continue;
    }
    const uint64_t expected = incident->version;
    if (!action.resolve) {
      // An acked incident keeps its first ack, and counts as acked.
      const core::AckOutcome acked = core::Acknowledge(*incident, now, action.by);
      if (acked == core::AckOutcome::kNotOpen) continue;
      if (acked == core::AckOutcome::kAcked) {
        if (auto status = WriteAck(tx, *incident, expected, now); !status) return status;
      }
    } else {
      const auto channels = routes.find(target.key);
      if (channels == routes.end()) continue;
      ResolveResult written;
      if (auto status = WriteResolve(tx, *incident, expected, action.by, now, ResolveOptions{},
                                     channels->second, written);
          !status) {
        return status;
      }
    }
    outcome.keys.push_back(target.key);
  }
  if (auto status = tx.Commit(); !status) return status;
  std::sort(outcome.keys.begin(), outcome.keys.end());
  return {};
}

core::Result<ResolveResult> OperatorCommands::Resolve(std::string_view key, std::string_view by,
                                                      core::WallTime now,
                                                      const ResolveOptions& options) {
  ResolveResult result;
  if (options.hold_for && options.hold_for->count() <= 0) {
    return core::MakeError(core::ErrorCode::kInvalidArgument, "--for must be positive");
  }
  if (options.upstream) {
    if (auto status = ResolveUpstream(key, result); !status) return status.error();
  }
  for (int attempt = 1;; ++attempt) {
    core::Status status = ResolveOnce(key, by, now, options, result);
    if (status) return result;
    if (status.error().code != core::ErrorCode::kConflict || attempt >= kMaxAttempts) {
      return status.error();
    }
  }
}

core::Result<core::Silence> OperatorCommands::AddSilence(core::SilenceMatch match,
                                                         std::string pattern,
                                                         core::Duration duration,
                                                         std::string reason, std::string by,
                                                         core::WallTime now) {
  core::Silence silence;
  silence.match = match;
  silence.pattern = std::move(pattern);
  silence.expires_at = now + duration;
  silence.reason = std::move(reason);
  silence.created_by = std::move(by);
  silence.created_at = now;
  if (auto valid = core::ValidateSilence(silence, now); !valid) return valid.error();
  auto id = operators_.AddSilence(silence);
  if (!id) return id.error();
  silence.id = *id;
  return silence;
}

core::Result<std::vector<core::Silence>> OperatorCommands::ListSilences(core::WallTime now) {
  return operators_.ListSilences(now);
}

core::Status OperatorCommands::RemoveSilence(uint64_t id) { return operators_.RemoveSilence(id); }

core::Result<std::vector<core::OutboxRow>> OperatorCommands::ListDead() {
  return incidents_.ListOutbox(core::OutboxStatus::kDead);
}

core::Result<core::OutboxStatus> OperatorCommands::RetryDead(std::string_view idempotency_key,
                                                             core::WallTime now) {
  return operators_.RetryDead(idempotency_key, now);
}

core::Result<core::OperatorStore::RetriedRows> OperatorCommands::RetryAllDead(
    std::optional<std::string_view> channel, core::WallTime now) {
  return operators_.RetryAllDead(channel, now);
}

core::Status OperatorCommands::DropDead(std::string_view idempotency_key, core::WallTime now) {
  return operators_.DropDead(idempotency_key, now);
}

}  // namespace quell::app
