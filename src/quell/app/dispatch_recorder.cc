#include "quell/app/dispatch_recorder.h"

#include <algorithm>
#include <utility>

#include "quell/core/delivery/dead_letter.h"

namespace quell::app {

OutcomeRecorder::OutcomeRecorder(core::OutboxStore& store, core::Clock& clock,
                                 std::string_view owner, size_t flush_every,
                                 DeadLetterRoute dead_letter, DispatchReport& report)
    : store_(store),
      clock_(clock),
      owner_(owner),
      flush_every_(std::max<size_t>(flush_every, 1)),
      dead_letter_(std::move(dead_letter)),
      report_(report) {}

void OutcomeRecorder::Add(const core::OutboxRow& row, core::OutboxOutcome outcome) {
  if (outcome.kind != core::OutboxOutcome::Kind::kDefer) {
    ChannelTally& tally = report_.by_channel[row.channel];
    ++tally.attempts;
    if (outcome.kind != core::OutboxOutcome::Kind::kSent) ++tally.failures;
  }
  rows_.push_back(&row);
  outcomes_.push_back(std::move(outcome));
  if (outcomes_.size() >= flush_every_) Flush();
}

void OutcomeRecorder::Flush() {
  if (outcomes_.empty()) return;
  ++report_.record_batches;
  const core::WallTime now = clock_.Now();
  if (!dead_letter_.channel.empty()) {
    // The window of `now`, the time the store records as the death: the notice lists the
    // rows that died in its window, so both must agree on it.
    for (size_t i = 0; i < outcomes_.size(); ++i) {
      const core::OutboxRow& row = *rows_[i];
      if (outcomes_[i].kind != core::OutboxOutcome::Kind::kDead ||
          row.channel == dead_letter_.channel || core::IsDeadLetterRow(row)) {
        continue;  // a notice about the dead-letter channel would go to that very channel
      }
      outcomes_[i].notice = core::MakeDeadLetterRow(
          dead_letter_.channel, core::DeadLetterWindowAt(now, dead_letter_.interval), now);
    }
  }
  auto statuses = store_.RecordOutcomes(owner_, outcomes_, now);
  if (!statuses) {
    // Nothing of the batch was recorded: the rows stay leased and, once the lease expires,
    // are claimed and sent again with the same idempotency keys.
    report_.errors.push_back("recording " + std::to_string(outcomes_.size()) +
                             " outcomes: " + statuses.error().message);
    report_.store_error = report_.errors.back();
  } else {
    for (size_t i = 0; i < outcomes_.size(); ++i) {
      const core::Status& status = (*statuses)[i];
      const core::OutboxOutcome& outcome = outcomes_[i];
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
          if (core::IsDeadLetterRow(*rows_[i])) ++report_.meta_alerts;
          report_.by_channel[rows_[i]->channel].delivery_latencies.push_back(now -
                                                                             rows_[i]->created_at);
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
  rows_.clear();
  outcomes_.clear();
}

}  // namespace quell::app
