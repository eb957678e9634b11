#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "quell/app/dispatch_outcome.h"
#include "quell/app/dispatch_recorder.h"
#include "quell/core/ports/channel.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/http_batch_client.h"
#include "quell/core/ports/outbox_store.h"

namespace quell::app {

struct DispatcherOptions {
  std::string owner;  // this dispatcher's lease owner id, unique per process
  core::Duration lease = std::chrono::seconds(60);
  size_t claim_batch = 256;
  // Outcomes per RecordOutcomes transaction, counted across the batches of a round.
  size_t record_every = 256;
  // With a claim ahead (Dispatcher::ClaimAheadWith), how many full batches one RunOnce may
  // send back to back: outcomes are written while the next batch is on the wire instead of
  // the wire waiting for them after each batch. 1: one batch a round. No batch starts once
  // the round has run `round_time` (monotonic), so groups, trims and a stop are not kept
  // waiting.
  uint32_t batches_per_round = 1;
  core::Duration round_time = std::chrono::seconds(1);
  // Whether the claim ahead and the outcome transactions, on connections of their own, take
  // turns (one mutex): SQLite has one writer at a time and the other would sleep in its busy
  // handler. PostgreSQL runs them side by side (false); on one shared connection they always
  // take turns.
  bool writers_take_turns = true;
  // Where dead rows are reported, one notice per interval listing them; empty: nowhere (the
  // rows stay visible as dead).
  std::string dead_letter_channel;
  core::Duration dead_letter_interval = std::chrono::minutes(5);
  uint64_t seed = 0;  // for jitter
  // Threads that render and encode a claimed batch (the dispatcher's own included); 1 keeps
  // all work on the dispatcher's thread.
  uint32_t prepare_threads = 2;
  // Finished outbox rows last changed longer ago than this are deleted (OutboxStore::
  // TrimOutbox), `trim_batch` rows per transaction, at most `trim_batches` batches per round,
  // every `trim_interval` (at once again while a round left some); nullopt keeps them forever.
  std::optional<core::Duration> outbox_retention;
  core::Duration trim_interval = std::chrono::minutes(10);
  size_t trim_batch = 1000;
  uint32_t trim_batches = 10;
};

// Delivers committed outbox rows: claims a batch of due rows with a lease, renders each, sends
// the HTTP channels' requests together through one HttpBatchClient::SendAll (one lane per
// channel, bounded by its concurrency) while other channels send on bounded worker threads,
// and records outcomes in batches as they complete. Transient failures are rescheduled with
// jittered backoff (or the provider's Retry-After) until the channel's attempt limit; then, or
// at once for a permanent failure, the row goes dead and its interval's dead-letter notice row
// is written with it, to be sent at the interval's end listing every row that died in it. Order per
// incident and channel is the store's: it never leases a row while an older sibling is undelivered.
// Not thread-safe; the store, renderer and clients serve this thread.
class Dispatcher {
 public:
  Dispatcher(core::OutboxStore& store, const core::MessageRenderer& renderer,
             core::HttpBatchClient& http, core::Clock& clock, DispatcherOptions options);
  // Returns a batch claimed ahead and never sent to pending, as it was (no attempt used).
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // While a full batch is on the wire, claims the next one through `claim_store`, a second
  // connection to the same store, so the store's round trip overlaps the sends instead of
  // following them. The rows keep the store's order guard: a row whose older sibling is in the
  // batch on the wire is not claimable. Call before the first RunOnce; the store must outlive
  // the dispatcher.
  void ClaimAheadWith(core::OutboxStore& claim_store) { claim_ahead_store_ = &claim_store; }
  // Writes outcomes through `record_store`, a connection of their own to the same store, so
  // they need not wait for a claim ahead on its connection (with options.writers_take_turns
  // false, they run side by side). Without it they go through the claim-ahead connection, or
  // the dispatcher's own store when there is none. Call before the first RunOnce; the store
  // must outlive the dispatcher.
  void RecordWith(core::OutboxStore& record_store) { record_store_ = &record_store; }

  // `name` is the channel name outbox rows carry; `type` picks the templates ("webhook",
  // "slack", "email", "sms", "pagerduty"). Channels must outlive the dispatcher.
  void AddHttpChannel(std::string name, std::string type, const core::HttpChannel& channel,
                      ChannelLimits limits = {});
  void AddChannel(std::string name, std::string type, core::Channel& channel,
                  ChannelLimits limits = {});

  // Assembles the group messages that are due (grouped channels), then claims one batch,
  // delivers it and records every outcome; see DispatchReport::next_due. With a claim ahead,
  // goes on with the batch claimed ahead while the claims come back full, up to
  // options.batches_per_round batches; the report counts them all.
  DispatchReport RunOnce();

 private:
  struct Route {
    std::string type;
    const core::HttpChannel* http = nullptr;
    core::Channel* channel = nullptr;
    ChannelLimits limits;
    uint32_t lane = 0;  // HTTP channels only
  };
  struct Attempt {
    core::Delivery delivery;
    const Route* route = nullptr;
    std::optional<core::SendOutcome> failed;  // set when it cannot even be sent
    // Set when the outcome is known without a send: a pacing rule holds the row, or a
    // dead-letter notice has nothing left to report (recorded sent).
    std::optional<core::OutboxOutcome> deferred;
    bool render = false;  // rendered from its payload (not a digest or dead-letter notice)
  };
  using Done = std::function<void(Attempt&, const core::SendOutcome&)>;

  // Asks the store once more about the claimed escalation rows (OutboxStore::
  // CancelUnwantedTierRows) and leaves out those it cancelled; on a store error, leaves out
  // every escalation row (its lease runs out and it is checked again then).
  void CheckTiersAgain(std::vector<core::OutboxRow>& rows, core::WallTime now,
                       DispatchReport& report);
  using Claim = core::Result<std::vector<core::OutboxRow>>;
  // A row's payload as read once (the channel's content) and the message rendered from it.
  struct ReadMessage {
    core::Message content;
    core::RenderedMessage message;
  };
  using Rendered = std::unordered_map<std::string, core::Result<ReadMessage>>;
  // A batch claimed ahead, with its plain rows read and rendered, by idempotency key.
  struct AheadBatch {
    Claim rows;
    Rendered rendered;
  };
  // Claims the next batch through claim_ahead_store_ and renders, on the calling thread, the
  // rows whose message needs nothing from the store (all but group, digest and dead-letter
  // rows): that work then overlaps the batch on the wire instead of following it.
  AheadBatch ClaimAhead();
  // Reads a plain row's payload and renders its message (the claim ahead's share of Prepare).
  core::Result<ReadMessage> ReadAndRender(std::string_view channel_type, const core::OutboxRow& row,
                                          core::WallTime now) const;
  // Puts a row's read and rendered message on its attempt, or fails the attempt with the error.
  static void TakeRead(Attempt& attempt, core::Result<ReadMessage> read);
  // `ahead`: rows already read and rendered (ClaimAhead), used instead of doing it again.
  std::vector<Attempt> Prepare(std::vector<core::OutboxRow> rows, Rendered ahead,
                               DispatchReport& report);
  // Claims (or takes the batch claimed ahead), prepares and sends one batch, adding every
  // outcome to `recorder`; returns how many rows it claimed, or nullopt when the claim failed.
  std::optional<size_t> SendBatch(core::WallTime now, OutcomeRecorder& recorder,
                                  std::vector<Attempt>& attempts, DispatchReport& report);
  // Sends every attempt but those failed or deferred already; `done` runs on this thread as
  // each one ends, in completion order.
  void Deliver(std::vector<Attempt>& attempts, const Done& done);
  // Builds every due group message (OutboxStore::AssembleGroup, planned by
  // core::PlanGroupMessage) and notes the next one due.
  void AssembleGroups(core::WallTime now, DispatchReport& report);
  // Fills a group row's payload from its members and where the group stands at `now`; the
  // channel's renderer renders it.
  void PrepareGroup(Attempt& attempt, core::WallTime now, DispatchReport& report);
  // Fills a digest row's message and payload from the rows it folded.
  void PrepareDigest(Attempt& attempt, DispatchReport& report);
  // Defers an SMS the channel's pacing rules hold; `planned` are this batch's earlier sends.
  void ApplyPacing(Attempt& attempt, std::map<const Route*, std::vector<core::WallTime>>& planned,
                   core::WallTime now, DispatchReport& report);
  // Fills a dead-letter notice's message and payload from the rows that died in its window.
  void PrepareDeadLetter(Attempt& attempt, DispatchReport& report);
  // Where outcomes are written (see RecordWith), and the mutex held around each write, if any.
  core::OutboxStore& RecordStore();
  std::mutex* RecordTurns();
  // Applies options_.outbox_retention when its interval is due.
  void TrimWhenDue(core::WallTime now, DispatchReport& report);

  core::OutboxStore& store_;
  core::OutboxStore* claim_ahead_store_ = nullptr;
  core::OutboxStore* record_store_ = nullptr;  // RecordWith's; nullptr: see RecordStore()
  std::future<AheadBatch> claimed_ahead_;  // valid while a claim ahead runs or waits to be taken
  // Held by the claim ahead and by each outcome transaction, which run on threads of their own
  // over two connections: they take turns instead of meeting SQLite's busy handler.
  std::mutex store_writes_;
  const core::MessageRenderer& renderer_;
  core::HttpBatchClient& http_;
  core::Clock& clock_;
  DispatcherOptions options_;
  std::map<std::string, Route, std::less<>> routes_;
  std::vector<uint32_t> lane_limits_;
  uint64_t random_state_;
  std::optional<core::MonoTime> next_trim_;  // unset: the first round trims
  // Whether waiting members were looked for once: a channel whose grouping was switched off
  // may have left some, which the first round sends on at once.
  bool groups_checked_ = false;
};

}  // namespace quell::app
