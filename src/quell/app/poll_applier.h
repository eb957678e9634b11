#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/app/escalation_targets.h"
#include "quell/core/conditions/channel_route.h"
#include "quell/core/conditions/escalation.h"
#include "quell/core/conditions/inhibition.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/delivery/maintenance_window.h"
#include "quell/core/engine/decision.h"
#include "quell/core/engine/observation.h"
#include "quell/core/engine/policy.h"
#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/observation_stream.h"
#include "quell/core/ports/payload_encoder.h"
#include "quell/core/ports/zone_rules.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

// Receives every decision of a poll, in input order. Nothing is durable until Apply returns ok,
// so a sink that shows decisions to a user should hold them until then.
class DecisionSink {
 public:
  virtual ~DecisionSink() = default;
  virtual void OnDecision(const core::Observation& observation, const core::Decision& decision) = 0;
  // The batch is being retried from the start: forget everything received so far.
  virtual void Reset() = 0;
};

// The poll lease a poll commits under (core/ports/lease_store.h): the lease's name and the
// fencing token this instance holds it with.
struct Fence {
  std::string lease;
  uint64_t token = 0;
};

// Incidents read before an apply's transaction (IncidentStore::FindIncidents), as a poller
// reads them to predict which keys transition: every key of `keys` (sorted, unique) was read,
// and `incidents` (sorted by key) holds those that had a row.
struct ReadBefore {
  std::vector<std::string> keys;
  std::vector<core::Incident> incidents;
};

struct ApplyOptions {
  core::Policy policy;
  // Quiet sightings (core/engine/quiet_sighting.h): an open incident's failure that goes on
  // unchanged is recorded at most this often; its other polls write nothing for it. Unset:
  // every sighting is recorded (the reference behaviour). Polled conditions set it.
  std::optional<core::Duration> sighting_refresh;
  // Observations evaluated per chunk. A chunk's keys are loaded and written together, so this
  // bounds memory; all chunks of a poll still commit in one transaction.
  size_t chunk_observations = 5000;
  uint32_t max_batch_attempts = 5;   // whole-batch retries on kConflict (e.g. a deadlock)
  uint32_t max_chunk_attempts = 20;  // re-read + re-evaluate of one chunk after a lost race
  std::vector<std::string> channels = {"default"};  // every transition routes to each
  // Escalation tiers instead of `channels` (empty: `channels` apply). A tier's open is due
  // `after` past the open; renotifies and the resolve go to the tiers already due, and a
  // follow-up goes only where the open was live (app/follow_up_rules.h).
  std::vector<core::EscalationTier> escalation;
  // The condition's `route:`: when set, each transition goes to the channels of the first
  // route its incident's labels (and severity) match, `channels` when none does.
  std::vector<core::ChannelRoute> routes;
  // The message severity of an encoded incident snapshot, as the renderer will compute it;
  // asked only when a route matches on severity (unset: "").
  std::function<std::string(std::string_view payload)> severity_of;
  // Shadow mode: incidents and decisions are kept as usual, but outbox rows go in as shadow,
  // which the dispatcher never claims; for trying a condition out before it may page anyone.
  // Otherwise rows whose key an active operator silence matches go in as silenced, likewise
  // never claimed (shadow wins over silenced; neither counts against the tenant budget).
  bool shadow = false;
  // Set on the first live poll after the condition was in shadow mode (or when that is not
  // known): every incident still open whose generation has only shadow rows on a channel gets
  // its open there now, saying it opened in shadow and how long ago (PayloadEncoder::
  // EncodeLateOpen). Version 0 places it before every row of the generation; its idempotency
  // key follows from (key, generation, 0, channel), so a second poller or a retried poll
  // cannot add a twin. A renotify of the same poll would repeat it and is not written.
  bool announce_shadow_opens = false;
  // Recurring maintenance windows, read in `zones` (set whenever there are windows). A live row
  // whose incident a window open at `now` covers goes in as muted, never claimed (shadow and
  // silenced win over muted). An incident still open once every window covering it has closed,
  // whose generation has only shadow or muted rows on a channel, gets its open there then, once
  // (PayloadEncoder::EncodeOpenAfterMaintenance), with the same version-0 idempotency key as a
  // late shadow open: a second poller or a retried poll cannot add a twin.
  std::vector<core::MaintenanceWindow> maintenance;
  const core::ZoneRules* zones = nullptr;
  // The condition's `inhibited_by`: the open incidents of the conditions named are read once per
  // transaction, and a live row whose incident one of them holds goes in as inhibited, never
  // claimed, naming the holder in last_error (shadow and silenced win over inhibited, inhibited
  // over muted); except a resolve on a channel that got the generation's open, which is sent. An
  // incident still open that nothing holds any more, whose generation has an inhibited row and only
  // shadow, muted or inhibited rows on a channel, gets its open there then, once
  // (PayloadEncoder::EncodeOpenAfterInhibition), with the same version-0 idempotency key as the
  // other late opens: a second poller or a retried poll cannot add a twin.
  std::vector<core::Inhibition> inhibited_by;
  // At most this many outbox rows per tenant, channel and hour; the rest are folded into the
  // hour's digest row (see budget_folding.h). 0: no budget.
  uint32_t tenant_budget_per_hour = 0;
  // Channels with grouping (core/delivery/grouping.h): their live rows go in as grouped, with
  // the group key of the incident's condition and labels, and wait for the group's message
  // (app::Dispatcher assembles it). Shadow and silenced rows stay what they are, except a
  // silenced resolve of an open the group told, which joins it (JoinSilencedResolves); grouped
  // rows never count against the tenant budget (the group message is one message).
  std::map<std::string, core::GroupPolicy, std::less<>> grouping;
  std::optional<core::Duration> decision_retention;  // nullopt keeps the log forever
  // Record the poll row even when the poll changed nothing; set for an explicit poll id.
  bool record_unchanged_poll = false;
  // A poll committed in several transactions (a streamed listing) records its poll row in the
  // last only: false in the others; the last adds `earlier_counts`, theirs, to its own.
  bool record_poll = true;
  core::PollRecord earlier_counts;
  // Set for a poll id a sender chose (a pushed request's poll_id, with record_unchanged_poll):
  // when the id was recorded before, the transaction is rolled back whole, so a retried request
  // changes nothing, and the summary says `duplicate`. The poll row is written last, and its
  // unique key makes a concurrent twin wait for the first and then see it.
  bool roll_back_recorded_poll = false;
  // Source marks (name, value) written in the apply transaction just before it commits, e.g.
  // a listing watermark: they advance exactly when this poll's incidents and outbox do, so a
  // failed apply leaves the previous marks and the next poll looks again from there.
  std::vector<std::pair<std::string, std::string>> source_marks;
  // The error groups seen failing under each key (sorted, unique), recorded in the apply
  // transaction for the shadow report; empty for metric conditions.
  std::vector<core::KeyGroup> key_groups;
  // Deletes the pairs last seen before this, in the same transaction; nullopt leaves them. A
  // scan of the table, so the poller sets it about once an hour, not every poll.
  std::optional<core::WallTime> key_groups_cutoff;
  // Set by `quell run`: every transaction checks the lease is still this token's
  // (StoreTransaction::FencePoll, just before the source marks and the commit) and moves its
  // polled_at; a newer holder makes the Apply fail with kConflict "fenced: ...", not retried.
  // Unset (poll-once, apply, replay): unfenced, as before leases existed.
  std::optional<Fence> fence;
  // What the caller read of these keys before the transaction: in it, such a key's row is only
  // checked for its version (StoreTransaction::LoadVersions) and read whole again only when the
  // version moved, so a predicted poll decodes each incident once. A chunk's first attempt
  // only; a retried chunk or batch reads everything again.
  ReadBefore read_before;
};

struct ApplySummary {
  core::PollRecord poll;
  bool poll_recorded = false;  // false: unchanged and not recorded, or recorded before
  // The poll id was recorded before and everything was rolled back (roll_back_recorded_poll).
  bool duplicate = false;
  uint32_t batch_attempts = 0;
  uint64_t chunk_retries = 0;  // chunks re-evaluated after losing a race
  uint64_t decisions_pruned = 0;
  uint64_t key_groups_pruned = 0;
  uint64_t outbox_silenced = 0;    // outbox rows stored as silenced (an operator's silence matched)
  uint64_t late_opens = 0;         // opens announced on leaving shadow mode (announce_shadow_opens)
  uint64_t outbox_muted = 0;       // outbox rows stored as muted (a maintenance window was open)
  uint64_t maintenance_opens = 0;  // opens announced when their maintenance window closed
  uint64_t outbox_inhibited = 0;   // outbox rows stored as inhibited (an inhibitor held them)
  uint64_t inhibition_opens = 0;   // opens announced when no inhibitor held them any more
};

// Applies one poll durably: in one store transaction, per chunk, it loads the chunk's
// incidents, evaluates every observation in order, writes changed incidents with
// compare-and-set, logs changed decisions and inserts one outbox row per transition per
// channel. Keys whose decision changed nothing are only counted, except an unknown or stale
// observation of an open, pending or held incident, which is marked for its timeline
// (StoreTransaction::AddObservationMarks); the source marks are written last, in the same
// transaction. Not thread-safe.
class PollApplier {
 public:
  PollApplier(core::IncidentStore& store, const core::PayloadEncoder& encoder,
              ApplyOptions options);

  // `now` is read once by the caller and stamps rows and the retention cutoff. Errors: the
  // stream's kInvalidArgument, the store's codes, kConflict when every attempt lost its race.
  // A transaction cut by kUnavailable after it began is run once more whole. A fenced poll
  // (options.fence no longer current) fails with kConflict, a message starting "fenced: ".
  core::Result<ApplySummary> Apply(core::ObservationStream& poll, std::string_view poll_id,
                                   core::WallTime now, DecisionSink& sink);

 private:
  struct Slot;
  struct Chunk;

  // `began` is set once the store's transaction has begun.
  core::Status ApplyOnce(core::ObservationStream& poll, std::string_view poll_id,
                         core::WallTime now, DecisionSink& sink, ApplySummary& summary,
                         bool& began);
  core::Status ApplyChunk(core::StoreTransaction& tx, Chunk& chunk, std::string_view poll_id,
                          core::WallTime now, ApplySummary& summary);
  // Loads the chunk's incidents into chunk.loaded: those of options_.read_before whose version
  // still holds taken from there (once each), the rest read whole.
  core::Status LoadChunk(core::StoreTransaction& tx, Chunk& chunk, bool first_attempt);

  core::Result<uint64_t> AnnounceShadowOpens(core::StoreTransaction& tx, Chunk& chunk,
                                             core::WallTime now);
  core::Result<uint64_t> AnnounceAfterMaintenance(core::StoreTransaction& tx, Chunk& chunk,
                                                  core::WallTime now);
  // Inhibition. The open incident of chunk.inhibitors that holds `incident`, or nullptr.
  const core::Incident* HoldingInhibitor(const Chunk& chunk, const core::Incident& incident) const;
  // Marks a live row inhibited by `holder`.
  // A held resolve on a channel that got its generation's open goes out after all: the page
  // there would otherwise stay open for good.
  core::Status SendResolvesOfSentOpens(core::StoreTransaction& tx, Chunk& chunk);
  // The opens held back by an inhibition that no longer holds their incident (and, first, the
  // resolves above).
  core::Result<uint64_t> AnnounceAfterInhibition(core::StoreTransaction& tx, Chunk& chunk,
                                                 core::WallTime now);
  // Writes a version-0 open for each channel of `generations` (open incidents of the chunk) that
  // never had a live row, with the payload `encode` writes.
  core::Result<uint64_t> AnnounceLateOpens(
      core::StoreTransaction& tx, Chunk& chunk, core::WallTime now,
      const std::vector<std::pair<std::string, uint64_t>>& generations,
      const std::function<void(const core::Incident&, std::string&)>& encode);
  // The window open at `now` that covers `incident`, or nullptr (also without windows).
  core::Result<const core::MaintenanceWindow*> MutingWindow(const core::Incident& incident,
                                                            core::WallTime now) const;
  // A silenced resolve on a grouped channel whose open the group told (StoreTransaction::
  // HeardChannels) joins the group after all, so its messages count the member resolved; one
  // whose open was never told there is cancelled. Returns how many silenced rows changed.
  core::Result<uint64_t> JoinSilencedResolves(core::StoreTransaction& tx, Chunk& chunk) const;
  // Where the options send a condition's transitions (app/escalation_targets.h).
  TargetRules Rules() const;

  core::IncidentStore& store_;
  const core::PayloadEncoder& encoder_;
  ApplyOptions options_;
  // LoadChunk's view of options_.read_before: for each key, its incident's place or kNotRead;
  // which incidents were taken; where the last chunk's keys ended.
  static constexpr size_t kNotRead = SIZE_MAX;
  std::vector<size_t> read_index_;
  std::vector<bool> read_taken_;
  size_t cursor_ = 0;
};

}  // namespace quell::app
