#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/ports/clock.h"
#include "quell/core/ports/outbox_store.h"

namespace quell::app {

// One channel's share of a dispatcher round, for the metrics.
struct ChannelTally {
  uint64_t attempts = 0;  // rows handed to the channel; a row a pacing rule held is not one
  uint64_t failures = 0;  // attempts that did not end sent (rescheduled or dead)
  // Per row recorded sent: from its commit (created_at) to the recording of the delivery.
  std::vector<core::Duration> delivery_latencies;
};

struct DispatchReport {
  uint64_t claimed = 0;
  uint64_t sent = 0;
  uint64_t retried = 0;
  uint64_t dead = 0;
  uint64_t lost_leases = 0;  // the lease expired mid-send; the new holder resends, same key
  uint64_t meta_alerts = 0;  // dead-letter notices sent
  uint64_t deferred = 0;     // held by a pacing rule (SMS quiet hours, interval, cap)
  uint64_t record_batches = 0;
  uint64_t trimmed = 0;             // finished rows deleted by outbox retention this round
  uint64_t groups_built = 0;        // group messages assembled this round (grouped channels)
  std::vector<std::string> errors;  // store and dead-letter failures, one line each
  // The claim or the recording of outcomes failed in the store (also in `errors`): the store
  // refused this round's writes. Empty when it took them.
  std::string store_error;
  // When RunOnce is next worth calling: now when the claim was full (more rows may be due),
  // else the earliest retry this run scheduled or group message due; nullopt when none, so the
  // caller waits its idle interval (new rows only come from polls).
  std::optional<core::WallTime> next_due;
  std::map<std::string, ChannelTally> by_channel;  // filled by OutcomeRecorder
};

// Where dead rows are reported: one notice per `interval` on `channel` (core/dead_letter.h);
// an empty channel reports nowhere (the rows stay visible as dead).
struct DeadLetterRoute {
  std::string channel;
  core::Duration interval = std::chrono::minutes(5);
};

// Records what became of claimed rows through OutboxStore::RecordOutcomes, `flush_every`
// outcomes per transaction, and counts them into the report. A death (other than on the
// dead-letter channel itself) carries its window's notice row into the same transaction, so
// the notice is as durable as the death. A full group's transaction runs on a thread of its
// own while the caller goes on (sending the rest of the batch), one transaction at a time; the
// store must not be used by anyone else until Flush returns. Report and counts are updated on
// the calling thread only.
class OutcomeRecorder {
 public:
  // `writes`, when set, is held around each transaction: another connection's writer to the
  // same store (the dispatcher's claim ahead) takes it too, so on SQLite the two queue on a
  // mutex instead of meeting the busy handler's sleeps.
  OutcomeRecorder(core::OutboxStore& store, core::Clock& clock, std::string_view owner,
                  size_t flush_every, DeadLetterRoute dead_letter, DispatchReport& report,
                  std::mutex* writes = nullptr);
  // Waits for a transaction still running (its outcomes are not counted).
  ~OutcomeRecorder();
  OutcomeRecorder(const OutcomeRecorder&) = delete;
  OutcomeRecorder& operator=(const OutcomeRecorder&) = delete;

  // `row` must outlive the next Flush.
  void Add(const core::OutboxRow& row, core::OutboxOutcome outcome);
  // Records everything added so far and returns once it is recorded and counted.
  void Flush();

 private:
  using Statuses = core::Result<std::vector<core::Status>>;
  struct Group {
    std::vector<const core::OutboxRow*> rows;
    std::vector<core::OutboxOutcome> outcomes;
    core::WallTime at;
  };
  // Starts the transaction of the outcomes added since the last one, after the one running.
  void Start();
  // Waits for the running transaction and counts its outcomes.
  void Collect();
  void Count(const Group& group, const Statuses& statuses);

  core::OutboxStore& store_;
  core::Clock& clock_;
  std::string owner_;
  size_t flush_every_;
  DeadLetterRoute dead_letter_;
  DispatchReport& report_;
  std::mutex* writes_;
  Group adding_;
  Group running_;
  std::future<Statuses> recorded_;  // valid while running_'s transaction runs
};

}  // namespace quell::app
