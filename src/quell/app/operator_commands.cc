#include "quell/app/operator_commands.h"

#include <memory>
#include <utility>

#include "quell/core/operator_actions.h"

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

}  // namespace

OperatorCommands::OperatorCommands(core::IncidentStore& incidents, core::OperatorStore& operators,
                                   const core::PayloadEncoder& encoder, RouteLookup routes)
    : incidents_(incidents), operators_(operators), encoder_(encoder), routes_(std::move(routes)) {}

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
                                                   core::WallTime now) {
  for (int attempt = 1;; ++attempt) {
    auto begun = incidents_.Begin();
    if (!begun) return begun.error();
    core::StoreTransaction& tx = **begun;
    auto incident = LoadOne(tx, key);
    if (!incident) return incident.error();
    const uint64_t expected = incident->version;
    switch (core::Acknowledge(*incident, now, by)) {
      case core::AckOutcome::kNotOpen:
        return NotOpen(*incident);
      case core::AckOutcome::kAlreadyAcked:
        return std::move(*incident);
      case core::AckOutcome::kAcked:
        break;
    }
    const core::IncidentWrite writes[] = {{*incident, expected}};
    core::Status status = tx.PutIncidents(writes);
    if (status) status = tx.Commit();
    if (status) return std::move(*incident);
    if (status.error().code != core::ErrorCode::kConflict || attempt >= kMaxAttempts) {
      return status.error();
    }
  }
}

core::Result<std::vector<core::ChannelUse>> OperatorCommands::ResolveChannels(
    const core::Incident& incident) {
  if (routes_) {
    if (std::optional<Route> route = routes_(incident.condition)) {
      std::vector<core::ChannelUse> out;
      for (const std::string& channel : route->channels) {
        out.push_back(core::ChannelUse{channel, route->shadow});
      }
      return out;
    }
  }
  return operators_.GenerationChannels(incident.key, incident.generation);
}

core::Status OperatorCommands::ResolveOnce(std::string_view key, std::string_view by,
                                           core::WallTime now, ResolveResult& result) {
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
  const uint64_t expected = incident->version;
  const core::Decision decision = core::ResolveByHand(*incident, now);
  if (!decision.changed) return NotOpen(*incident);
  auto silences = tx.LoadActiveSilences(now);
  if (!silences) return silences.error();

  const core::IncidentWrite writes[] = {{*incident, expected}};
  if (auto status = tx.PutIncidents(writes); !status) return status;
  const core::DecisionRecord log[] = {
      {incident->key, decision.generation, decision.version, now, decision.kind, decision.reason}};
  const std::string poll_id = "manual-" + core::FormatRfc3339(now) + "-" + std::string(by);
  if (auto status = tx.AppendDecisions(poll_id, log); !status) return status;

  result.outbox.clear();
  const bool silenced = core::IsSilenced(*silences, incident->key, now);
  for (const core::ChannelUse& use : *channels) {
    core::OutboxRow row;
    row.idempotency_key = core::OutboxIdempotencyKey(incident->key, decision.generation,
                                                     decision.version, use.channel);
    row.key = incident->key;
    row.generation = decision.generation;
    row.version = decision.version;
    row.transition = core::TransitionKind::kResolve;
    row.channel = use.channel;
    encoder_.Encode(*incident, core::TransitionKind::kResolve, row.payload);
    if (use.shadow_only) {
      row.status = core::OutboxStatus::kShadow;
    } else if (silenced) {
      row.status = core::OutboxStatus::kSilenced;
    }
    row.next_attempt_at = now;
    row.created_at = now;
    row.updated_at = now;
    result.outbox.push_back(std::move(row));
  }
  if (auto status = tx.InsertOutbox(result.outbox); !status) return status;
  if (auto status = tx.Commit(); !status) return status;
  result.incident = std::move(*incident);
  return {};
}

core::Result<ResolveResult> OperatorCommands::Resolve(std::string_view key, std::string_view by,
                                                      core::WallTime now) {
  ResolveResult result;
  for (int attempt = 1;; ++attempt) {
    core::Status status = ResolveOnce(key, by, now, result);
    if (status) return result;
    if (status.error().code != core::ErrorCode::kConflict || attempt >= kMaxAttempts) {
      return status.error();
    }
  }
}

core::Result<core::Silence> OperatorCommands::AddSilence(std::string pattern,
                                                         core::Duration duration,
                                                         std::string reason, std::string by,
                                                         core::WallTime now) {
  core::Silence silence;
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
