#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "quell/core/ports/outbox_store.h"

namespace quell::testing {

// An in-memory OutboxStore keeping the port's promises (order, leases, the ordering guard,
// supersede on sent), with fault knobs for the dispatcher's tests.
class FakeOutboxStore : public core::OutboxStore {
 public:
  void Add(core::OutboxRow row) { rows_[row.idempotency_key] = std::move(row); }
  const core::OutboxRow& Row(const std::string& idempotency_key) {
    return rows_.at(idempotency_key);
  }

  // When the next RecordOutcomes runs, `idempotency_key` has gone to another owner first.
  void LoseLeaseBeforeRecord(std::string idempotency_key) {
    lose_before_record_.insert(std::move(idempotency_key));
  }
  // The next `n` RecordOutcomes calls fail as a whole with `code`.
  void FailNextRecord(int n, core::ErrorCode code) {
    record_failures_ = n;
    record_code_ = code;
  }
  // The size of every RecordOutcomes batch, in call order.
  const std::vector<size_t>& record_batches() const { return record_batches_; }
  int claims() const { return claims_; }  // ClaimDue calls

  // The fake knows no incidents: CancelUnwantedTierRows cancels the claimed tier rows named
  // here (as the store would once an ack committed), or fails with `code` when set.
  void CancelTierRows(std::set<std::string> keys) { cancel_tier_rows_ = std::move(keys); }
  void FailTierCheck(core::ErrorCode code) { tier_check_failure_ = code; }
  core::Result<std::vector<std::string>> CancelUnwantedTierRows(
      std::string_view owner, std::span<const core::OutboxRow> claimed,
      core::WallTime now) override {
    if (tier_check_failure_) return core::MakeError(*tier_check_failure_, "tier check failed");
    std::vector<std::string> cancelled;
    for (const core::OutboxRow& row : claimed) {
      auto it = rows_.find(row.idempotency_key);
      if (row.tier == 0 || !cancel_tier_rows_.contains(row.idempotency_key) || it == rows_.end() ||
          it->second.lease_owner != owner) {
        continue;
      }
      it->second.status = core::OutboxStatus::kCancelled;
      it->second.lease_owner.clear();
      it->second.updated_at = now;
      cancelled.push_back(row.idempotency_key);
    }
    return cancelled;
  }
  core::Result<std::vector<core::OutboxRow>> ClaimDue(std::string_view owner, core::WallTime now,
                                                      core::Duration lease, size_t limit) override {
    ++claims_;
    std::vector<core::OutboxRow*> live;
    for (auto& [id, row] : rows_) {
      if (row.status == core::OutboxStatus::kPending ||
          row.status == core::OutboxStatus::kInFlight) {
        live.push_back(&row);
      }
    }
    std::sort(live.begin(), live.end(), [](const core::OutboxRow* a, const core::OutboxRow* b) {
      return std::tie(a->key, a->channel, a->generation, a->version) <
             std::tie(b->key, b->channel, b->generation, b->version);
    });
    std::vector<core::OutboxRow> out;
    std::set<std::pair<std::string, std::string>> blocked;  // (key, channel) with an older row
    for (core::OutboxRow* row : live) {
      if (out.size() >= limit) break;
      const bool first = blocked.insert({row->key, row->channel}).second;
      if (!first) continue;
      const bool due = row->status == core::OutboxStatus::kPending
                           ? row->next_attempt_at <= now
                           : row->lease_expires_at && *row->lease_expires_at <= now;
      if (!due) continue;
      row->status = core::OutboxStatus::kInFlight;
      row->lease_owner = std::string(owner);
      row->lease_expires_at = now + lease;
      ++row->claims;  // attempts count when the outcome is recorded
      out.push_back(*row);
    }
    return out;
  }

  core::Result<std::vector<core::Status>> RecordOutcomes(
      std::string_view owner, std::span<const core::OutboxOutcome> outcomes,
      core::WallTime now) override {
    record_batches_.push_back(outcomes.size());
    for (const std::string& id : lose_before_record_) rows_.at(id).lease_owner = "thief";
    lose_before_record_.clear();
    if (record_failures_ > 0) {
      --record_failures_;
      return core::MakeError(record_code_, "injected record failure");
    }
    std::vector<core::Status> out;
    for (const core::OutboxOutcome& o : outcomes) {
      auto it = rows_.find(o.idempotency_key);
      if (it == rows_.end() || it->second.lease_owner != owner ||
          it->second.status != core::OutboxStatus::kInFlight) {
        out.emplace_back(core::MakeError(core::ErrorCode::kConflict, "lease lost"));
        continue;
      }
      core::OutboxRow& row = it->second;
      row.lease_owner.clear();
      row.lease_expires_at.reset();
      row.updated_at = now;
      if (o.kind != core::OutboxOutcome::Kind::kDefer) {
        if (!o.throttled) ++row.attempts;
        row.throttled_since =
            o.throttled ? row.throttled_since.value_or(now) : std::optional<core::WallTime>();
      }
      switch (o.kind) {
        case core::OutboxOutcome::Kind::kSent:
          row.status = core::OutboxStatus::kSent;
          row.remote_message_id = o.remote_message_id;
          Supersede(row, now);
          break;
        case core::OutboxOutcome::Kind::kReschedule:
          row.status = core::OutboxStatus::kPending;
          row.last_error = o.error;
          row.next_attempt_at = o.next_attempt_at;
          break;
        case core::OutboxOutcome::Kind::kDefer:
          row.status = core::OutboxStatus::kPending;
          row.last_error = o.error;
          row.next_attempt_at = o.next_attempt_at;
          break;
        case core::OutboxOutcome::Kind::kDead:
          row.status = core::OutboxStatus::kDead;
          row.last_error = o.error;
          if (o.notice) rows_.try_emplace(o.notice->idempotency_key, *o.notice);
          break;
      }
      out.emplace_back();
    }
    return out;
  }

  core::Result<std::vector<core::WallTime>> SentTimes(std::string_view channel,
                                                      core::WallTime since) override {
    std::vector<core::WallTime> out;
    for (const auto& [id, row] : rows_) {
      if (row.channel == channel && row.status == core::OutboxStatus::kSent &&
          row.updated_at >= since) {
        out.push_back(row.updated_at);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  core::Result<std::vector<core::OutboxRow>> FoldedRows(std::string_view channel,
                                                        std::string_view tenant,
                                                        core::WallTime start,
                                                        core::WallTime end) override {
    std::vector<core::OutboxRow> out;
    const std::string prefix = std::string(tenant) + ":";
    for (const auto& [id, row] : rows_) {
      if (row.channel == channel && row.status == core::OutboxStatus::kFolded &&
          row.key.starts_with(prefix) && row.created_at >= start && row.created_at < end) {
        out.push_back(row);
      }
    }
    std::sort(out.begin(), out.end(), [](const core::OutboxRow& a, const core::OutboxRow& b) {
      return std::tie(a.created_at, a.key) < std::tie(b.created_at, b.key);
    });
    return out;
  }

  core::Result<std::vector<core::OutboxRow>> DeadRows(core::WallTime start,
                                                      core::WallTime end) override {
    std::vector<core::OutboxRow> out;
    for (const auto& [id, row] : rows_) {
      if (row.status == core::OutboxStatus::kDead && row.updated_at >= start &&
          row.updated_at < end) {
        out.push_back(row);
      }
    }
    std::sort(out.begin(), out.end(), [](const core::OutboxRow& a, const core::OutboxRow& b) {
      return std::tie(a.updated_at, a.key, a.channel) < std::tie(b.updated_at, b.key, b.channel);
    });
    return out;
  }

  // Deletes finished rows updated before `cutoff`, oldest first (no incidents here to keep).
  core::Result<uint64_t> TrimOutbox(core::WallTime cutoff, size_t limit) override {
    std::vector<const core::OutboxRow*> done;
    for (const auto& [id, row] : rows_) {
      if (row.status != core::OutboxStatus::kPending &&
          row.status != core::OutboxStatus::kInFlight && row.updated_at < cutoff) {
        done.push_back(&row);
      }
    }
    std::sort(done.begin(), done.end(), [](const core::OutboxRow* a, const core::OutboxRow* b) {
      return a->updated_at < b->updated_at;
    });
    if (done.size() > limit) done.resize(limit);
    std::vector<std::string> ids;
    ids.reserve(done.size());
    for (const core::OutboxRow* row : done) ids.push_back(row->idempotency_key);
    for (const std::string& id : ids) rows_.erase(id);
    trim_calls_.push_back(ids.size());
    return static_cast<uint64_t>(ids.size());
  }
  // The rows each TrimOutbox call deleted, in call order.
  const std::vector<size_t>& trim_calls() const { return trim_calls_; }

  // Every row, by idempotency key.
  const std::map<std::string, core::OutboxRow>& rows() const { return rows_; }

  // The fake holds no grouped rows: grouping is tested against a real SQLite store.
  core::Result<std::vector<core::WaitingGroup>> WaitingGroups() override {
    return std::vector<core::WaitingGroup>{};
  }
  core::Result<std::optional<core::OutboxRow>> AssembleGroup(std::string_view, std::string_view,
                                                             core::WallTime,
                                                             const core::GroupPlanner&) override {
    return std::optional<core::OutboxRow>{};
  }
  core::Result<std::vector<core::OutboxRow>> GroupMembers(std::string_view) override {
    return std::vector<core::OutboxRow>{};
  }
  core::Result<core::GroupStanding> GroupStandingAt(std::string_view, std::string_view,
                                                    core::WallTime) override {
    return core::GroupStanding{};
  }

  core::Result<std::string> ThreadRemoteId(std::string_view key, uint64_t generation,
                                           std::string_view channel) override {
    std::optional<std::pair<uint64_t, std::string>> first;
    for (const auto& [id, row] : rows_) {
      if (row.key == key && row.generation == generation && row.channel == channel &&
          row.status == core::OutboxStatus::kSent && (!first || row.version < first->first)) {
        first = {row.version, row.remote_message_id};
      }
    }
    return first ? first->second : std::string();
  }

 private:
  void Supersede(const core::OutboxRow& sent, core::WallTime now) {
    for (auto& [id, row] : rows_) {
      if (row.key == sent.key && row.channel == sent.channel &&
          row.status == core::OutboxStatus::kPending &&
          std::tie(row.generation, row.version) < std::tie(sent.generation, sent.version)) {
        row.status = core::OutboxStatus::kSuperseded;
        row.updated_at = now;
      }
    }
  }

  std::map<std::string, core::OutboxRow> rows_;
  std::set<std::string> cancel_tier_rows_;
  std::optional<core::ErrorCode> tier_check_failure_;
  std::set<std::string> lose_before_record_;
  int record_failures_ = 0;
  core::ErrorCode record_code_ = core::ErrorCode::kUnavailable;
  std::vector<size_t> record_batches_;
  int claims_ = 0;
  std::vector<size_t> trim_calls_;
};

}  // namespace quell::testing
