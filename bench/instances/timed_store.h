#pragma once

// An IncidentStore that forwards everything to the real one and times the two calls the
// instances benchmark reports on: FencePoll (the lease's cost inside a poll) and Commit. One
// per instance, used by that instance's poll thread only, like the store it wraps.
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "quell/core/ports/incident_store.h"

namespace quell::bench {

struct TransactionTimes {
  std::vector<double> fence_s;   // each FencePoll call
  std::vector<double> commit_s;  // each Commit call
};

class TimedTransaction : public core::StoreTransaction {
 public:
  TimedTransaction(std::unique_ptr<core::StoreTransaction> inner, TransactionTimes& times)
      : inner_(std::move(inner)), times_(times) {}

  core::Status LoadIncidents(std::span<const std::string> keys,
                             std::vector<core::Incident>& out) override {
    return inner_->LoadIncidents(keys, out);
  }
  core::Status Savepoint() override { return inner_->Savepoint(); }
  core::Status RollbackToSavepoint() override { return inner_->RollbackToSavepoint(); }
  core::Status PutIncidents(std::span<const core::IncidentWrite> writes) override {
    return inner_->PutIncidents(writes);
  }
  core::Status AppendDecisions(std::string_view poll_id,
                               std::span<const core::DecisionRecord> decisions) override {
    return inner_->AppendDecisions(poll_id, decisions);
  }
  core::Status AddObservationMarks(std::span<const core::ObservationMark> marks) override {
    return inner_->AddObservationMarks(marks);
  }
  core::Status InsertOutbox(std::span<const core::OutboxRow> rows) override {
    return inner_->InsertOutbox(rows);
  }
  core::Result<uint64_t> CancelTierOpens(
      std::span<const std::pair<std::string, uint64_t>> generations, core::WallTime now) override {
    return inner_->CancelTierOpens(generations, now);
  }
  core::Result<std::vector<core::GenerationChannel>> NeverLiveChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) override {
    return inner_->NeverLiveChannels(generations);
  }
  core::Result<std::vector<core::GenerationChannel>> HeardChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) override {
    return inner_->HeardChannels(generations);
  }
  core::Result<std::vector<core::HeldChannel>> InhibitedChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) override {
    return inner_->InhibitedChannels(generations);
  }
  core::Result<std::vector<core::Incident>> LoadOpenIncidentsOf(
      std::span<const std::string> conditions) override {
    return inner_->LoadOpenIncidentsOf(conditions);
  }
  core::Result<bool> RecordPoll(const core::PollRecord& poll) override {
    return inner_->RecordPoll(poll);
  }
  core::Result<uint64_t> PruneDecisions(core::WallTime cutoff) override {
    return inner_->PruneDecisions(cutoff);
  }
  core::Result<uint64_t> PruneKeyGroups(core::WallTime cutoff) override {
    return inner_->PruneKeyGroups(cutoff);
  }
  core::Status PutSourceMark(std::string_view name, std::string_view value,
                             core::WallTime now) override {
    return inner_->PutSourceMark(name, value, now);
  }
  core::Status RecordKeyGroups(std::span<const core::KeyGroup> seen, core::WallTime now) override {
    return inner_->RecordKeyGroups(seen, now);
  }
  core::Status RecordNewKeyGroups(std::span<const core::KeyGroup> seen,
                                  core::WallTime now) override {
    return inner_->RecordNewKeyGroups(seen, now);
  }
  core::Result<bool> AdmitToBudget(std::string_view tenant, std::string_view channel,
                                   core::WallTime window_start, uint32_t per_hour) override {
    return inner_->AdmitToBudget(tenant, channel, window_start, per_hour);
  }
  core::Result<std::vector<core::Silence>> LoadActiveSilences(core::WallTime now) override {
    return inner_->LoadActiveSilences(now);
  }
  core::Status FencePoll(std::string_view lease, uint64_t token, core::WallTime at) override {
    const auto start = std::chrono::steady_clock::now();
    core::Status status = inner_->FencePoll(lease, token, at);
    times_.fence_s.push_back(Since(start));
    return status;
  }
  core::Status Commit() override {
    const auto start = std::chrono::steady_clock::now();
    core::Status status = inner_->Commit();
    times_.commit_s.push_back(Since(start));
    return status;
  }

 private:
  static double Since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  std::unique_ptr<core::StoreTransaction> inner_;
  TransactionTimes& times_;
};

class TimedIncidentStore : public core::IncidentStore {
 public:
  explicit TimedIncidentStore(core::IncidentStore& inner) : inner_(inner) {}

  TransactionTimes times;

  core::Result<std::unique_ptr<core::StoreTransaction>> Begin() override {
    auto tx = inner_.Begin();
    if (!tx) return tx.error();
    return std::unique_ptr<core::StoreTransaction>(
        std::make_unique<TimedTransaction>(std::move(*tx), times));
  }
  core::Result<std::vector<core::Incident>> ListIncidents() override {
    return inner_.ListIncidents();
  }
  core::Result<std::optional<core::Incident>> FindIncident(std::string_view key) override {
    return inner_.FindIncident(key);
  }
  core::Result<std::vector<core::Incident>> ListOpenIncidents(std::string_view condition) override {
    return inner_.ListOpenIncidents(condition);
  }
  core::Result<std::vector<std::string>> ListWatchedKeysAfter(std::string_view condition,
                                                              std::string_view after,
                                                              size_t limit) override {
    return inner_.ListWatchedKeysAfter(condition, after, limit);
  }
  core::Status FindIncidents(std::span<const std::string> keys,
                             std::vector<core::Incident>& out) override {
    return inner_.FindIncidents(keys, out);
  }
  core::Result<std::vector<core::OutboxRow>> ListOutbox(
      std::optional<core::OutboxStatus> status) override {
    return inner_.ListOutbox(status);
  }
  core::Status MarkSent(std::string_view idempotency_key, std::string_view remote_message_id,
                        core::WallTime now) override {
    return inner_.MarkSent(idempotency_key, remote_message_id, now);
  }
  core::Result<std::optional<std::string>> GetSourceMark(std::string_view name) override {
    return inner_.GetSourceMark(name);
  }
  core::Result<uint64_t> CountDecisions() override { return inner_.CountDecisions(); }
  core::Result<uint64_t> CountPolls() override { return inner_.CountPolls(); }
  core::Result<uint64_t> CountOpenIncidents() override { return inner_.CountOpenIncidents(); }
  core::Result<std::map<std::string, uint64_t>> CountOutboxByStatus() override {
    return inner_.CountOutboxByStatus();
  }

 private:
  core::IncidentStore& inner_;
};

}  // namespace quell::bench
