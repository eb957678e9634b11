#include "quell/app/poll_applier.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "quell/app/budget_folding.h"
#include "quell/app/follow_up_rules.h"
#include "quell/core/delivery/delivery_plan.h"
#include "quell/core/engine/evaluate.h"
#include "quell/core/engine/quiet_sighting.h"

namespace quell::app {
namespace {

// An inhibited row's last_error: this, then the key of the incident that held it.

// Whether an observation that changed nothing goes on its incident's timeline as a mark
// (StoreTransaction::AddObservationMarks): an unknown or stale one of a key whose incident is
// open, pending or held, so healthy keys cost nothing. A stale observation at the very time of
// the last applied one repeats it (a poll run again): the decision log has it already.
bool Marks(const core::Incident& incident, const core::Observation& observation,
           const core::Decision& decision) {
  if (decision.kind != core::DecisionKind::kUnknown &&
      decision.kind != core::DecisionKind::kStale) {
    return false;
  }
  if (!incident.is_open() && incident.unhealthy_streak == 0 && !incident.held) return false;
  return decision.kind != core::DecisionKind::kStale || !incident.last_observed_at ||
         observation.at < *incident.last_observed_at;
}

}  // namespace

// One key's incident while its chunk is evaluated.
struct PollApplier::Slot {
  core::Incident incident;
  uint64_t expected_version = 0;  // as loaded; 0 when the key had no row
  bool dirty = false;
};

struct PollApplier::Chunk {
  std::vector<core::Observation> observations;  // reused across chunks for their buffers
  size_t size = 0;
  std::vector<core::Decision> decisions;  // parallel to observations[0, size)
  std::vector<std::string> keys;
  std::vector<core::Incident> loaded;
  std::vector<std::string> unread;   // LoadChunk's keys to read whole
  std::vector<std::string> checked;  // LoadChunk's keys read before, whose versions are checked
  std::vector<size_t> checked_at;    // their places in ApplyOptions::read_before.keys
  std::vector<std::pair<std::string, uint64_t>> versions;
  std::vector<Slot> slots;
  std::vector<core::IncidentWrite> writes;
  std::vector<core::DecisionRecord> log;
  std::vector<core::ObservationMark> marks;
  std::vector<core::OutboxRow> outbox;
  std::vector<core::Silence> silences;     // active at the poll's `now`, read once per transaction
  std::vector<core::Incident> inhibitors;  // open incidents of inhibited_by, read likewise
  // Keys whose sighting this transaction left unrecorded (a quiet sighting): their key_groups
  // pairs are only inserted when new, not upserted. Over every chunk of the transaction.
  std::vector<std::string> quiet_keys;
};

namespace {

// Splits the poll's pairs: those of keys whose sighting was recorded (upserted), and those of
// keys seen quietly (inserted only when new: their incident is not written either).
void SplitPairs(const std::vector<core::KeyGroup>& pairs, std::vector<std::string>& quiet_keys,
                std::vector<core::KeyGroup>& recorded, std::vector<core::KeyGroup>& quiet) {
  if (!std::is_sorted(quiet_keys.begin(), quiet_keys.end())) {
    std::sort(quiet_keys.begin(), quiet_keys.end());  // chunks of a poll are mostly in order
  }
  for (const core::KeyGroup& pair : pairs) {
    const bool is_quiet = std::binary_search(quiet_keys.begin(), quiet_keys.end(), pair.key);
    (is_quiet ? quiet : recorded).push_back(pair);
  }
}

}  // namespace

PollApplier::PollApplier(core::IncidentStore& store, const core::PayloadEncoder& encoder,
                         ApplyOptions options)
    : store_(store), encoder_(encoder), options_(std::move(options)) {
  if (options_.chunk_observations == 0) options_.chunk_observations = 1;
  if (options_.max_batch_attempts == 0) options_.max_batch_attempts = 1;
  if (options_.max_chunk_attempts == 0) options_.max_chunk_attempts = 1;
}

core::Result<ApplySummary> PollApplier::Apply(core::ObservationStream& poll,
                                              std::string_view poll_id, core::WallTime now,
                                              DecisionSink& sink) {
  ApplySummary summary;
  bool retried_lost_store = false;
  for (uint32_t attempt = 1;; ++attempt) {
    summary = ApplySummary{};
    summary.batch_attempts = attempt;
    bool begun = false;
    core::Status status = ApplyOnce(poll, poll_id, now, sink, summary, begun);
    if (status) return summary;
    // Another instance holds the lease now: it polls, this poll commits nothing.
    if (status.error().message.starts_with(core::kFencedPrefix)) return status.error();
    // A store lost after the transaction began (a PostgreSQL restart cut the connection, or
    // its COMMIT's outcome is unknown) is tried once more, whole, on a fresh Begin, which
    // reconnects. Running this transaction twice is harmless even if the first did commit:
    // the re-read incidents carry this poll's `at`, so every observation is stale and writes
    // nothing, the poll row and decisions are keyed, and outbox rows by their idempotency
    // key. A store still down fails that Begin and the error is reported.
    const bool lost_store =
        status.error().code == core::ErrorCode::kUnavailable && begun && !retried_lost_store;
    if (lost_store) {
      retried_lost_store = true;
    } else if (status.error().code != core::ErrorCode::kConflict ||
               attempt >= options_.max_batch_attempts) {
      return status.error();
    }
    // The transaction was lost whole (a deadlock, serialization failure or lost connection):
    // start over, reading every incident again.
    options_.read_before = ReadBefore{};
    read_index_.clear();
    read_taken_.clear();
    cursor_ = 0;
    if (auto rewound = poll.Rewind(); !rewound) {
      return core::MakeError(core::ErrorCode::kConflict,
                             status.error().message + "; cannot retry: " + rewound.error().message);
    }
    sink.Reset();
  }
}

core::Status PollApplier::ApplyOnce(core::ObservationStream& poll, std::string_view poll_id,
                                    core::WallTime now, DecisionSink& sink, ApplySummary& summary,
                                    bool& began) {
  auto begun = store_.Begin();
  if (!begun) return begun.error();
  began = true;
  core::StoreTransaction& tx = **begun;

  summary.poll.poll_id = std::string(poll_id);
  summary.poll.applied_at = now;
  Chunk chunk;
  chunk.observations.resize(options_.chunk_observations);
  if (!options_.shadow) {
    // Shadow rows are never sent anyway; otherwise every row of this poll is judged against
    // the silences as they stand at the start of its transaction.
    auto silences = tx.LoadActiveSilences(now);
    if (!silences) return silences.error();
    chunk.silences = std::move(*silences);
  }
  if (!options_.shadow && !options_.inhibited_by.empty()) {
    std::vector<std::string> conditions;
    for (const core::Inhibition& rule : options_.inhibited_by) conditions.push_back(rule.condition);
    std::sort(conditions.begin(), conditions.end());
    conditions.erase(std::unique(conditions.begin(), conditions.end()), conditions.end());
    auto open = tx.LoadOpenIncidentsOf(conditions);
    if (!open) return open.error();
    chunk.inhibitors = std::move(*open);
  }
  bool more = true;
  while (more) {
    chunk.size = 0;
    while (chunk.size < chunk.observations.size()) {
      auto next = poll.Next(chunk.observations[chunk.size]);
      if (!next) return next.error();
      if (!*next) {
        more = false;
        break;
      }
      ++chunk.size;
    }
    if (chunk.size == 0) break;
    if (auto status = ApplyChunk(tx, chunk, poll_id, now, summary); !status) return status;
    for (size_t i = 0; i < chunk.size; ++i) {
      sink.OnDecision(chunk.observations[i], chunk.decisions[i]);
    }
  }

  core::PollRecord record = summary.poll;
  record.observations += options_.earlier_counts.observations;
  record.changed += options_.earlier_counts.changed;
  record.outbox_rows += options_.earlier_counts.outbox_rows;
  for (size_t k = 0; k < record.by_decision.size(); ++k) {
    record.by_decision[k] += options_.earlier_counts.by_decision[k];
  }
  // A poll of quiet sightings only changed nothing, but its row counts them (the shadow
  // report's update_only): one row a poll.
  const bool quiet = record.by_decision[static_cast<size_t>(core::DecisionKind::kUpdateOnly)] > 0;
  if (options_.record_poll && (record.changed > 0 || quiet || options_.record_unchanged_poll)) {
    auto recorded = tx.RecordPoll(record);
    if (!recorded) return recorded.error();
    summary.poll_recorded = *recorded;
    if (!*recorded && options_.roll_back_recorded_poll) {
      // Destroying the transaction uncommitted rolls this application back whole.
      summary.duplicate = true;
      return {};
    }
  }
  if (options_.decision_retention) {
    auto pruned = tx.PruneDecisions(now - *options_.decision_retention);
    if (!pruned) return pruned.error();
    summary.decisions_pruned = *pruned;
  }
  if (options_.key_groups_cutoff) {
    auto pruned = tx.PruneKeyGroups(*options_.key_groups_cutoff);
    if (!pruned) return pruned.error();
    summary.key_groups_pruned = *pruned;
  }
  // In slices of a chunk, as the decisions are written, so one statement stays bounded.
  std::vector<core::KeyGroup> recorded;
  std::vector<core::KeyGroup> quiet_pairs;
  SplitPairs(options_.key_groups, chunk.quiet_keys, recorded, quiet_pairs);
  const std::span<const core::KeyGroup> key_groups(recorded);
  for (size_t at = 0; at < key_groups.size(); at += options_.chunk_observations) {
    const size_t n = std::min(options_.chunk_observations, key_groups.size() - at);
    if (auto status = tx.RecordKeyGroups(key_groups.subspan(at, n), now); !status) return status;
  }
  const std::span<const core::KeyGroup> new_only(quiet_pairs);
  for (size_t at = 0; at < new_only.size(); at += options_.chunk_observations) {
    const size_t n = std::min(options_.chunk_observations, new_only.size() - at);
    if (auto status = tx.RecordNewKeyGroups(new_only.subspan(at, n), now); !status) return status;
  }
  if (options_.fence) {
    // Last before the marks and the commit: on PostgreSQL its row lock holds until the commit,
    // so a takeover waits for this poll instead of racing it.
    if (auto fenced = tx.FencePoll(options_.fence->lease, options_.fence->token, now); !fenced) {
      return fenced;
    }
  }
  for (const auto& [name, value] : options_.source_marks) {
    if (auto status = tx.PutSourceMark(name, value, now); !status) return status;
  }
  return tx.Commit();
}

core::Status PollApplier::ApplyChunk(core::StoreTransaction& tx, Chunk& chunk,
                                     std::string_view poll_id, core::WallTime now,
                                     ApplySummary& summary) {
  chunk.keys.clear();
  for (size_t i = 0; i < chunk.size; ++i) chunk.keys.push_back(chunk.observations[i].key);
  if (!std::is_sorted(chunk.keys.begin(), chunk.keys.end())) {
    std::sort(chunk.keys.begin(), chunk.keys.end());  // a poller's chunk comes sorted
  }
  chunk.keys.erase(std::unique(chunk.keys.begin(), chunk.keys.end()), chunk.keys.end());

  const size_t quiet_before = chunk.quiet_keys.size();
  for (uint32_t attempt = 1;; ++attempt) {
    chunk.quiet_keys.resize(quiet_before);  // a retried chunk evaluates again
    if (auto status = tx.Savepoint(); !status) return status;
    if (auto status = LoadChunk(tx, chunk, attempt == 1); !status) return status;

    // Slots in key order; a key without a row gets a fresh incident that stays unwritten
    // unless a decision changes it, so healthy keys that never opened cost no row.
    chunk.slots.clear();
    chunk.slots.resize(chunk.keys.size());
    std::unordered_map<std::string_view, size_t> index;
    index.reserve(chunk.keys.size());
    for (size_t i = 0; i < chunk.keys.size(); ++i) index.emplace(chunk.keys[i], i);
    for (core::Incident& incident : chunk.loaded) {
      auto it = index.find(incident.key);
      if (it == index.end()) continue;
      Slot& slot = chunk.slots[it->second];
      slot.expected_version = incident.version;
      slot.incident = std::move(incident);
    }

    core::PollRecord counts;
    uint64_t silenced = 0;
    uint64_t muted = 0;
    chunk.decisions.assign(chunk.size, core::Decision{});
    chunk.log.clear();
    chunk.marks.clear();
    chunk.outbox.clear();
    for (size_t i = 0; i < chunk.size; ++i) {
      const core::Observation& observation = chunk.observations[i];
      Slot& slot = chunk.slots[index.at(observation.key)];
      // The count the key's last message reported: a silenced message is never sent, so the
      // next one must count from the last that was (see below).
      const std::optional<uint64_t> count_at_message = slot.incident.upstream_count_at_message;
      const bool quiet = options_.sighting_refresh &&
                         core::IsQuietSighting(slot.incident, observation, options_.policy,
                                               *options_.sighting_refresh);
      const core::Decision decision =
          quiet ? core::QuietSightingDecision(slot.incident, observation.at, options_.policy)
                : core::Evaluate(slot.incident, observation, options_.policy);
      chunk.decisions[i] = decision;
      ++counts.by_decision[static_cast<size_t>(decision.kind)];
      if (!decision.changed) {
        if (quiet) chunk.quiet_keys.push_back(observation.key);
        if (Marks(slot.incident, observation, decision)) {
          chunk.marks.push_back(core::ObservationMark{observation.key, std::string(poll_id),
                                                      observation.at, slot.incident.generation,
                                                      observation.health, decision.kind});
        }
        continue;
      }
      slot.dirty = true;
      ++counts.changed;
      chunk.log.push_back(core::DecisionRecord{observation.key, decision.generation,
                                               decision.version, observation.at, decision.kind,
                                               decision.reason});
      if (!decision.transition) continue;
      const bool silence =
          !options_.shadow && core::IsSilenced(chunk.silences, observation.key, now);
      const core::Incident* holder =
          options_.shadow || silence ? nullptr : HoldingInhibitor(chunk, slot.incident);
      bool mute = false;
      if (!options_.shadow && !silence && holder == nullptr) {
        auto window = MutingWindow(slot.incident, now);
        if (!window) return window.error();
        mute = *window != nullptr;
      }
      std::string payload;
      encoder_.Encode(slot.incident, *decision.transition, payload);
      // A message that is never sent (a renotify silenced, muted by a window, held by an
      // inhibitor or in shadow; an open silenced) moves no baseline: the next message's "N since
      // the last message" counts from the last message the channels got (after a silenced
      // open: none, the whole count). A held open is sent late, with its count: kept.
      const bool unsent = options_.shadow || silence || holder != nullptr || mute;
      if (unsent && *decision.transition == core::TransitionKind::kRenotify) {
        slot.incident.upstream_count_at_message = count_at_message;
      } else if (silence && *decision.transition == core::TransitionKind::kOpen) {
        slot.incident.upstream_count_at_message.reset();
      }
      const std::vector<core::TierTarget> targets = TargetsOf(Rules(), slot.incident, payload);
      core::DeliveryHolds holds{
          .shadow = options_.shadow, .silenced = silence, .inhibitor = holder, .muted = mute};
      std::vector<core::OutboxRow> rows =
          core::PlanDelivery(core::PlannedTransition{.incident = slot.incident,
                                                     .transition = *decision.transition,
                                                     .generation = decision.generation,
                                                     .version = decision.version,
                                                     .payload = payload},
                             targets, holds, options_.grouping, now);
      for (core::OutboxRow& row : rows) {
        if (row.status == core::OutboxStatus::kSilenced) ++silenced;
        if (row.status == core::OutboxStatus::kMuted) ++muted;
        chunk.outbox.push_back(std::move(row));
      }
    }

    uint64_t late_opens = 0;
    if (options_.announce_shadow_opens && !options_.shadow) {
      auto announced = AnnounceShadowOpens(tx, chunk, now);
      if (!announced) return announced.error();
      late_opens = *announced;
    }
    uint64_t maintenance_opens = 0;
    if (!options_.maintenance.empty() && !options_.shadow) {
      auto announced = AnnounceAfterMaintenance(tx, chunk, now);
      if (!announced) return announced.error();
      maintenance_opens = *announced;
    }
    uint64_t inhibition_opens = 0;
    if (!options_.inhibited_by.empty() && !options_.shadow) {
      auto announced = AnnounceAfterInhibition(tx, chunk, now);
      if (!announced) return announced.error();
      inhibition_opens = *announced;
    }

    // Before the writes below take the chunk's incidents: a joining row needs its labels.
    auto unsilenced = JoinSilencedResolves(tx, chunk);
    if (!unsilenced) return unsilenced.error();
    silenced -= std::min(silenced, *unsilenced);

    chunk.writes.clear();
    for (Slot& slot : chunk.slots) {
      if (!slot.dirty) continue;
      chunk.writes.push_back(core::IncidentWrite{std::move(slot.incident), slot.expected_version});
    }
    core::Status written = tx.PutIncidents(chunk.writes);
    if (!written && written.error().code == core::ErrorCode::kConflict &&
        attempt < options_.max_chunk_attempts) {
      // Another writer got there first: forget this chunk's work, re-read and re-evaluate.
      ++summary.chunk_retries;
      if (auto status = tx.RollbackToSavepoint(); !status) return status;
      continue;
    }
    if (!written) return written;
    if (auto status = tx.AppendDecisions(poll_id, chunk.log); !status) return status;
    if (!chunk.marks.empty()) {
      if (auto status = tx.AddObservationMarks(chunk.marks); !status) return status;
    }
    if (auto cancelled = CancelUnwantedFollowUps(tx, chunk.outbox, now); !cancelled) {
      return cancelled.error();
    }
    auto folded = FoldOverBudget(tx, chunk.outbox, options_.tenant_budget_per_hour, now);
    if (!folded) return folded.error();
    if (auto status = tx.InsertOutbox(chunk.outbox); !status) return status;

    summary.poll.observations += chunk.size;
    summary.poll.changed += counts.changed;
    summary.poll.outbox_rows += chunk.outbox.size();
    summary.outbox_silenced += silenced;
    summary.late_opens += late_opens;
    summary.outbox_muted += muted;
    summary.maintenance_opens += maintenance_opens;
    // Counted as written: AnnounceAfterInhibition may have changed some either way.
    summary.outbox_inhibited += static_cast<uint64_t>(std::count_if(
        chunk.outbox.begin(), chunk.outbox.end(),
        [](const core::OutboxRow& row) { return row.status == core::OutboxStatus::kInhibited; }));
    summary.inhibition_opens += inhibition_opens;
    for (size_t k = 0; k < counts.by_decision.size(); ++k) {
      summary.poll.by_decision[k] += counts.by_decision[k];
    }
    return {};
  }
}

core::Status PollApplier::LoadChunk(core::StoreTransaction& tx, Chunk& chunk, bool first_attempt) {
  chunk.loaded.clear();
  const ReadBefore& before = options_.read_before;
  if (!first_attempt || before.keys.empty()) return tx.LoadIncidents(chunk.keys, chunk.loaded);
  const size_t n = before.keys.size();
  if (read_index_.empty()) {
    // Where each key read before has its incident, once: both lists are sorted by key.
    read_index_.assign(n, kNotRead);
    read_taken_.assign(before.incidents.size(), false);
    size_t at = 0;
    for (size_t k = 0; k < n && at < before.incidents.size(); ++k) {
      if (before.incidents[at].key == before.keys[k]) read_index_[k] = at++;
    }
  }
  chunk.unread.clear();
  chunk.checked.clear();
  chunk.checked_at.clear();
  // chunk.keys is sorted, so a cursor walks before.keys once; it searches only when a chunk
  // starts below where the last one ended.
  size_t pos = cursor_;
  if (!chunk.keys.empty() && pos > 0 && chunk.keys.front() < before.keys[pos - 1]) {
    pos = static_cast<size_t>(
        std::lower_bound(before.keys.begin(), before.keys.end(), chunk.keys.front()) -
        before.keys.begin());
  }
  for (const std::string& key : chunk.keys) {
    while (pos < n && before.keys[pos] < key) ++pos;
    if (pos < n && before.keys[pos] == key) {
      chunk.checked.push_back(key);
      chunk.checked_at.push_back(pos);
    } else {
      chunk.unread.push_back(key);
    }
  }
  cursor_ = pos;
  chunk.versions.clear();
  if (auto status = tx.LoadVersions(chunk.checked, chunk.versions); !status) return status;
  auto stored = chunk.versions.begin();
  for (size_t c = 0; c < chunk.checked.size(); ++c) {
    const std::string& key = chunk.checked[c];
    while (stored != chunk.versions.end() && stored->first < key) ++stored;
    const bool has_row = stored != chunk.versions.end() && stored->first == key;
    const size_t at = read_index_[chunk.checked_at[c]];
    const bool had_row = at != kNotRead;
    if (!has_row && !had_row) continue;  // still no row
    if (has_row && had_row && before.incidents[at].version == stored->second && !read_taken_[at]) {
      read_taken_[at] = true;
      chunk.loaded.push_back(std::move(options_.read_before.incidents[at]));
      continue;
    }
    chunk.unread.push_back(key);  // created, changed or deleted since it was read
  }
  std::sort(chunk.unread.begin(), chunk.unread.end());
  return tx.LoadIncidents(chunk.unread, chunk.loaded);
}

TargetRules PollApplier::Rules() const {
  return TargetRules{options_.channels, options_.escalation, options_.routes, options_.severity_of};
}

core::Result<uint64_t> PollApplier::JoinSilencedResolves(core::StoreTransaction& tx,
                                                         Chunk& chunk) const {
  if (options_.grouping.empty()) return uint64_t{0};
  const auto joins = [this](const core::OutboxRow& row) {
    return row.status == core::OutboxStatus::kSilenced &&
           row.transition == core::TransitionKind::kResolve &&
           options_.grouping.contains(row.channel);
  };
  std::vector<std::pair<std::string, uint64_t>> generations;
  for (const core::OutboxRow& row : chunk.outbox) {
    if (joins(row)) generations.emplace_back(row.key, row.generation);
  }
  if (generations.empty()) return uint64_t{0};
  std::sort(generations.begin(), generations.end());
  generations.erase(std::unique(generations.begin(), generations.end()), generations.end());
  auto heard = tx.HeardChannels(generations);
  if (!heard) return heard.error();
  uint64_t changed = 0;
  for (core::OutboxRow& row : chunk.outbox) {
    if (!joins(row)) continue;
    ++changed;
    const bool was_heard =
        std::any_of(heard->begin(), heard->end(), [&](const core::GenerationChannel& use) {
          return use.key == row.key && use.generation == row.generation &&
                 use.channel == row.channel;
        });
    if (!was_heard) {
      // Its open was never told there (silenced too): neither is its end.
      row.status = core::OutboxStatus::kCancelled;
      continue;
    }
    row.status = core::OutboxStatus::kPending;
    const auto at = std::lower_bound(chunk.keys.begin(), chunk.keys.end(), row.key);
    core::JoinGroupIfPending(
        row, chunk.slots[static_cast<size_t>(at - chunk.keys.begin())].incident, options_.grouping);
  }
  return changed;
}

core::Result<const core::MaintenanceWindow*> PollApplier::MutingWindow(
    const core::Incident& incident, core::WallTime now) const {
  if (options_.maintenance.empty()) return static_cast<const core::MaintenanceWindow*>(nullptr);
  if (options_.zones == nullptr) {
    // Without zones only one-off windows (a span, no zone to read) can be open.
    for (const core::MaintenanceWindow& window : options_.maintenance) {
      if (window.span && core::WindowCovers(window, incident.key, incident.labels) &&
          window.span->start <= now && now < window.span->end) {
        return &window;
      }
    }
    return static_cast<const core::MaintenanceWindow*>(nullptr);
  }
  return core::ActiveWindowFor(options_.maintenance, *options_.zones, incident.key, incident.labels,
                               now);
}

core::Result<uint64_t> PollApplier::AnnounceShadowOpens(core::StoreTransaction& tx, Chunk& chunk,
                                                        core::WallTime now) {
  std::vector<std::pair<std::string, uint64_t>> generations;
  for (const Slot& slot : chunk.slots) {
    if (slot.incident.status != core::IncidentStatus::kOpen) continue;
    // Inside a maintenance window the open waits for the window's end.
    auto window = MutingWindow(slot.incident, now);
    if (!window) return window.error();
    if (*window == nullptr) generations.emplace_back(slot.incident.key, slot.incident.generation);
  }
  return AnnounceLateOpens(tx, chunk, now, generations,
                           [&](const core::Incident& incident, std::string& out) {
                             encoder_.EncodeLateOpen(incident, now, out);
                           });
}

core::Result<uint64_t> PollApplier::AnnounceAfterMaintenance(core::StoreTransaction& tx,
                                                             Chunk& chunk, core::WallTime now) {
  // Only incidents some window covers, and none covers now: a window that closed may have
  // muted their open. Their other channels (or later polls) find a live row and write nothing.
  std::vector<std::pair<std::string, uint64_t>> generations;
  std::map<std::string, std::string, std::less<>> window_of;
  for (const Slot& slot : chunk.slots) {
    const core::Incident& incident = slot.incident;
    if (incident.status != core::IncidentStatus::kOpen) continue;
    const core::MaintenanceWindow* covering = nullptr;
    for (const core::MaintenanceWindow& window : options_.maintenance) {
      if (core::WindowCovers(window, incident.key, incident.labels)) {
        covering = &window;
        break;
      }
    }
    if (covering == nullptr) continue;
    auto active = MutingWindow(incident, now);
    if (!active) return active.error();
    if (*active != nullptr) continue;
    generations.emplace_back(incident.key, incident.generation);
    window_of.emplace(incident.key, covering->name);
  }
  return AnnounceLateOpens(tx, chunk, now, generations,
                           [&](const core::Incident& incident, std::string& out) {
                             encoder_.EncodeOpenAfterMaintenance(
                                 incident, window_of.find(incident.key)->second, now, out);
                           });
}

core::Result<uint64_t> PollApplier::AnnounceLateOpens(
    core::StoreTransaction& tx, Chunk& chunk, core::WallTime now,
    const std::vector<std::pair<std::string, uint64_t>>& generations,
    const std::function<void(const core::Incident&, std::string&)>& encode) {
  if (generations.empty()) return uint64_t{0};
  auto found = tx.NeverLiveChannels(generations);
  if (!found) return found.error();
  uint64_t announced = 0;
  for (const core::GenerationChannel& use : *found) {
    const std::optional<core::TierTarget> target = FindTarget(Rules(), use.channel);
    const auto at = std::lower_bound(chunk.keys.begin(), chunk.keys.end(), use.key);
    if (!target || at == chunk.keys.end() || *at != use.key) continue;
    const core::Incident& incident =
        chunk.slots[static_cast<size_t>(at - chunk.keys.begin())].incident;
    if (incident.generation != use.generation) continue;
    // Held by an inhibitor: the open waits for it to let go (AnnounceAfterInhibition).
    if (HoldingInhibitor(chunk, incident) != nullptr) continue;
    // An ack stopped the climb: a later tier is not paged late either.
    if (target->tier > 0 && incident.acked_at) continue;
    // The late open says all a "still failing" would: this poll's renotify is not written.
    std::erase_if(chunk.outbox, [&](const core::OutboxRow& row) {
      return row.key == use.key && row.channel == use.channel && row.generation == use.generation &&
             row.transition == core::TransitionKind::kRenotify;
    });
    // Already written by this chunk (the shadow announce of the same poll): not twice.
    if (std::any_of(chunk.outbox.begin(), chunk.outbox.end(), [&](const core::OutboxRow& row) {
          return row.key == use.key && row.channel == use.channel &&
                 row.generation == use.generation && row.version == 0;
        })) {
      continue;
    }
    core::OutboxRow row;
    row.idempotency_key = core::OutboxIdempotencyKey(use.key, use.generation, 0, use.channel);
    row.key = use.key;
    row.generation = use.generation;
    row.version = 0;
    row.transition = core::TransitionKind::kOpen;
    row.channel = use.channel;
    row.tier = target->tier;
    encode(incident, row.payload);
    if (core::IsSilenced(chunk.silences, use.key, now)) row.status = core::OutboxStatus::kSilenced;
    core::JoinGroupIfPending(row, incident, options_.grouping);
    row.next_attempt_at = now + target->after;
    row.created_at = now;
    row.updated_at = now;
    chunk.outbox.push_back(std::move(row));
    ++announced;
  }
  return announced;
}

const core::Incident* PollApplier::HoldingInhibitor(const Chunk& chunk,
                                                    const core::Incident& incident) const {
  if (chunk.inhibitors.empty()) return nullptr;
  return core::HoldingInhibitor(options_.inhibited_by, chunk.inhibitors, incident);
}

core::Status PollApplier::SendResolvesOfSentOpens(core::StoreTransaction& tx, Chunk& chunk) {
  std::vector<std::pair<std::string, uint64_t>> held;
  for (const core::OutboxRow& row : chunk.outbox) {
    if (row.status == core::OutboxStatus::kInhibited &&
        row.transition == core::TransitionKind::kResolve) {
      held.emplace_back(row.key, row.generation);
    }
  }
  if (held.empty()) return {};
  std::sort(held.begin(), held.end());
  held.erase(std::unique(held.begin(), held.end()), held.end());
  auto quiet = tx.NeverLiveChannels(held);
  if (!quiet) return quiet.error();
  for (core::OutboxRow& row : chunk.outbox) {
    if (row.status != core::OutboxStatus::kInhibited ||
        row.transition != core::TransitionKind::kResolve) {
      continue;
    }
    const bool never_sent =
        std::any_of(quiet->begin(), quiet->end(), [&](const core::GenerationChannel& use) {
          return use.key == row.key && use.generation == row.generation &&
                 use.channel == row.channel;
        });
    if (never_sent) continue;
    // The channel has this generation's open: its resolve closes what was paged there.
    row.status = core::OutboxStatus::kPending;
    row.last_error.clear();
    const auto at = std::lower_bound(chunk.keys.begin(), chunk.keys.end(), row.key);
    core::JoinGroupIfPending(
        row, chunk.slots[static_cast<size_t>(at - chunk.keys.begin())].incident, options_.grouping);
  }
  return {};
}

core::Result<uint64_t> PollApplier::AnnounceAfterInhibition(core::StoreTransaction& tx,
                                                            Chunk& chunk, core::WallTime now) {
  if (auto status = SendResolvesOfSentOpens(tx, chunk); !status) return status.error();
  // Every incident of the chunk that nothing holds now and no window mutes: one that some
  // inhibitor held before has inhibited rows. One that is still open gets its open; one that
  // resolved since keeps its resolve quiet too, since its open was never sent.
  std::vector<std::pair<std::string, uint64_t>> candidates;
  for (const Slot& slot : chunk.slots) {
    const core::Incident& incident = slot.incident;
    if (incident.generation == 0 || HoldingInhibitor(chunk, incident) != nullptr) continue;
    if (incident.status != core::IncidentStatus::kOpen && !slot.dirty) continue;
    auto window = MutingWindow(incident, now);
    if (!window) return window.error();
    if (*window == nullptr) candidates.emplace_back(incident.key, incident.generation);
  }
  if (candidates.empty()) return uint64_t{0};
  auto held = tx.InhibitedChannels(candidates);
  if (!held) return held.error();
  if (held->empty()) return uint64_t{0};
  std::map<std::string, std::string, std::less<>> holder_of;  // by key: the last named
  for (const core::HeldChannel& channel : *held) {
    std::string_view name = channel.held_behind;
    if (name.starts_with(core::kHeldBehindPrefix))
      name.remove_prefix(core::kHeldBehindPrefix.size());
    holder_of[channel.key] = std::string(name);
  }
  std::vector<std::pair<std::string, uint64_t>> open;
  std::vector<std::pair<std::string, uint64_t>> resolved;
  for (const auto& [key, generation] : candidates) {
    if (!holder_of.contains(key)) continue;
    const auto at = std::lower_bound(chunk.keys.begin(), chunk.keys.end(), key);
    const core::Incident& incident =
        chunk.slots[static_cast<size_t>(at - chunk.keys.begin())].incident;
    (incident.status == core::IncidentStatus::kOpen ? open : resolved)
        .emplace_back(key, generation);
  }
  if (!resolved.empty()) {
    auto quiet = tx.NeverLiveChannels(resolved);
    if (!quiet) return quiet.error();
    for (core::OutboxRow& row : chunk.outbox) {
      if (row.status != core::OutboxStatus::kPending &&
          row.status != core::OutboxStatus::kGrouped) {
        continue;
      }
      const bool never_sent =
          std::any_of(quiet->begin(), quiet->end(), [&](const core::GenerationChannel& use) {
            return use.key == row.key && use.generation == row.generation &&
                   use.channel == row.channel;
          });
      if (!never_sent) continue;
      row.status = core::OutboxStatus::kInhibited;
      row.group_key.clear();
      core::HoldBehind(row, holder_of.find(row.key)->second);
    }
  }
  return AnnounceLateOpens(tx, chunk, now, open,
                           [&](const core::Incident& incident, std::string& out) {
                             encoder_.EncodeOpenAfterInhibition(
                                 incident, holder_of.find(incident.key)->second, now, out);
                           });
}

}  // namespace quell::app
