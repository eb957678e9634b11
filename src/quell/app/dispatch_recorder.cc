#include "quell/app/dispatch_recorder.h"

#include <algorithm>
#include <utility>

#include "quell/core/delivery/dead_letter.h"

namespace quell::app {

OutcomeRecorder::OutcomeRecorder(core::OutboxStore& store, core::Clock& clock,
                                 std::string_view owner, size_t flush_every,
                                 DeadLetterRoute dead_letter, DispatchReport& report,
                                 std::mutex* writes)
    : store_(store),
      clock_(clock),
      owner_(owner),
      flush_every_(std::max<size_t>(flush_every, 1)),
      dead_letter_(std::move(dead_letter)),
      report_(report),
      writes_(writes) {}

OutcomeRecorder::~OutcomeRecorder() {
  if (recorded_.valid()) recorded_.wait();
}

void OutcomeRecorder::Add(const core::OutboxRow& row, core::OutboxOutcome outcome) {
  if (outcome.kind != core::OutboxOutcome::Kind::kDefer) {
    ChannelTally& tally = report_.by_channel[row.channel];
    ++tally.attempts;
    if (outcome.kind != core::OutboxOutcome::Kind::kSent) ++tally.failures;
  }
  adding_.rows.push_back(&row);
  adding_.outcomes.push_back(std::move(outcome));
  if (adding_.outcomes.size() >= flush_every_) Start();
}

void OutcomeRecorder::Flush() {
  if (!adding_.outcomes.empty()) Start();
  Collect();
}

void OutcomeRecorder::Start() {
  Collect();  // one transaction at a time, in the order the outcomes came
  running_ = std::exchange(adding_, {});
  ++report_.record_batches;
  const core::WallTime now = clock_.Now();
  running_.at = now;
  if (!dead_letter_.channel.empty()) {
    // The window of `now`, the time the store records as the death: the notice lists the
    // rows that died in its window, so both must agree on it.
    for (size_t i = 0; i < running_.outcomes.size(); ++i) {
      const core::OutboxRow& row = *running_.rows[i];
      if (running_.outcomes[i].kind != core::OutboxOutcome::Kind::kDead ||
          row.channel == dead_letter_.channel || core::IsDeadLetterRow(row)) {
        continue;  // a notice about the dead-letter channel would go to that very channel
      }
      running_.outcomes[i].notice = core::MakeDeadLetterRow(
          dead_letter_.channel, core::DeadLetterWindowAt(now, dead_letter_.interval), now);
    }
  }
  recorded_ = std::async(std::launch::async, [this, now] {
    std::unique_lock<std::mutex> lock;
    if (writes_ != nullptr) lock = std::unique_lock<std::mutex>(*writes_);
    return store_.RecordOutcomes(owner_, running_.outcomes, now);
  });
}

void OutcomeRecorder::Collect() {
  if (!recorded_.valid()) return;
  const Statuses statuses = recorded_.get();
  Count(running_, statuses);
  running_ = {};
}

void OutcomeRecorder::Count(const Group& group, const Statuses& statuses) {
  const core::WallTime now = group.at;
  const std::vector<core::OutboxOutcome>& outcomes = group.outcomes;
  const std::vector<const core::OutboxRow*>& rows = group.rows;
  if (!statuses) {
    // Nothing of the batch was recorded: the rows stay leased and, once the lease expires,
    // are claimed and sent again with the same idempotency keys.
    report_.errors.push_back("recording " + std::to_string(outcomes.size()) +
                             " outcomes: " + statuses.error().message);
    report_.store_error = report_.errors.back();
    return;
  }
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const core::Status& status = (*statuses)[i];
    const core::OutboxOutcome& outcome = outcomes[i];
    if (!status) {
      if (status.error().code == core::ErrorCode::kConflict) {
        ++report_.lost_leases;
      } else {
        report_.errors.push_back(outcome.idempotency_key + ": " + status.error().message);
      }
      continue;
    }
    switch (outcome.kind) {
      case core::OutboxOutcome::Kind::kSent:
        ++report_.sent;
        if (core::IsDeadLetterRow(*rows[i])) ++report_.meta_alerts;
        report_.by_channel[rows[i]->channel].delivery_latencies.push_back(now -
                                                                          rows[i]->created_at);
        break;
      case core::OutboxOutcome::Kind::kReschedule:
        ++report_.retried;
        if (!report_.next_due || outcome.next_attempt_at < *report_.next_due) {
          report_.next_due = outcome.next_attempt_at;
        }
        break;
      case core::OutboxOutcome::Kind::kDefer:
        ++report_.deferred;
        break;
      case core::OutboxOutcome::Kind::kDead:
        ++report_.dead;
        break;
    }
  }
}

}  // namespace quell::app
