#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "quell/core/ports/incident_store.h"

namespace quell::testing {

// An in-memory IncidentStore for app tests, with fault knobs. Transactions work on a copy of
// the state and publish it on Commit, so a rolled-back batch leaves nothing behind.
class FakeIncidentStore : public core::IncidentStore {
 public:
  struct Mark {
    std::string value;
    core::WallTime updated_at;
  };
  struct State {
    std::map<std::string, core::Incident> incidents;
    std::map<std::pair<std::string, uint64_t>, core::DecisionRecord> decisions;
    std::map<std::pair<std::string, std::string>, core::ObservationMark> observation_marks;
    std::map<std::string, core::OutboxRow> outbox;
    std::map<std::string, core::PollRecord> polls;
    std::map<std::string, Mark, std::less<>> marks;
    std::map<std::string, uint64_t> budget_seen;  // "tenant|channel|window micros"
    std::vector<core::Silence> silences;
    std::map<std::pair<std::string, std::string>, core::KeyGroupRow> key_groups;
    // Remembered callback events: (provider, id) -> expires_at.
    std::map<std::pair<std::string, std::string>, core::WallTime> callback_events;
  };

  // The next `n` PutIncidents calls fail with `code`; `before_failure` runs first, e.g. to play
  // the writer that won the race.
  void FailNextPut(int n, core::ErrorCode code, std::function<void(State&)> before_failure = {}) {
    put_failures_ = n;
    put_code_ = code;
    before_failure_ = std::move(before_failure);
  }
  // The next `n` Commit calls fail with `code` (a deadlock or serialization failure).
  void FailNextCommit(int n, core::ErrorCode code) {
    commit_failures_ = n;
    commit_code_ = code;
  }

  // What FencePoll answers (unset: the port's refusal, as a store without leases). Each call
  // is recorded in fence_calls() with the source marks its transaction had written by then.
  std::function<core::Status(std::string_view lease, uint64_t token, core::WallTime at)> fence;
  struct FenceCall {
    std::string lease;
    uint64_t token = 0;
    size_t marks_written_before = 0;
  };
  const std::vector<FenceCall>& fence_calls() const { return fence_calls_; }

  State& state() { return state_; }
  int begins() const { return begins_; }
  int puts() const { return puts_; }

  core::Result<std::unique_ptr<core::StoreTransaction>> Begin() override {
    ++begins_;
    return std::unique_ptr<core::StoreTransaction>(new Tx(*this));
  }
  core::Result<std::vector<core::Incident>> ListIncidents() override {
    std::vector<core::Incident> out;
    for (auto& [k, v] : state_.incidents) out.push_back(v);
    return out;
  }
  core::Result<std::optional<core::Incident>> FindIncident(std::string_view key) override {
    auto it = state_.incidents.find(std::string(key));
    if (it == state_.incidents.end()) return std::optional<core::Incident>();
    return std::optional<core::Incident>(it->second);
  }
  core::Result<std::vector<core::Incident>> ListOpenIncidents(std::string_view condition) override {
    std::vector<core::Incident> out;
    for (auto& [k, v] : state_.incidents) {
      if (v.condition == condition && (v.is_open() || v.held)) out.push_back(v);
    }
    return out;
  }
  core::Result<std::vector<core::OutboxRow>> ListOutbox(
      std::optional<core::OutboxStatus> status) override {
    std::vector<core::OutboxRow> out;
    for (auto& [k, v] : state_.outbox) {
      if (!status || v.status == *status) out.push_back(v);
    }
    return out;
  }
  core::Status MarkSent(std::string_view, std::string_view, core::WallTime) override {
    return core::MakeError(core::ErrorCode::kInternal, "not faked");
  }
  core::Result<std::optional<std::string>> GetSourceMark(std::string_view name) override {
    auto it = state_.marks.find(name);
    if (it == state_.marks.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second.value);
  }
  core::Result<uint64_t> CountDecisions() override { return state_.decisions.size(); }
  core::Result<uint64_t> CountPolls() override { return state_.polls.size(); }
  core::Result<uint64_t> CountOpenIncidents() override {
    if (count_failures_ > 0) {
      --count_failures_;
      return core::MakeError(core::ErrorCode::kUnavailable, "injected count failure");
    }
    uint64_t n = 0;
    for (auto& [k, v] : state_.incidents) n += v.is_open() ? 1U : 0U;
    return n;
  }
  core::Result<std::map<std::string, uint64_t>> CountOutboxByStatus() override {
    std::map<std::string, uint64_t> out;
    for (auto& [k, v] : state_.outbox) ++out[core::OutboxStatusName(v.status)];
    return out;
  }
  // The next `n` CountOpenIncidents calls fail with kUnavailable.
  void FailNextCount(int n) { count_failures_ = n; }

 private:
  class Tx : public core::StoreTransaction {
   public:
    explicit Tx(FakeIncidentStore& s) : store_(s), work_(s.state_) {}
    core::Status LoadIncidents(std::span<const std::string> keys,
                               std::vector<core::Incident>& out) override {
      for (const auto& k : keys) {
        if (auto it = work_.incidents.find(k); it != work_.incidents.end()) {
          out.push_back(it->second);
        }
      }
      return {};
    }
    core::Status Savepoint() override {
      savepoint_ = work_;
      return {};
    }
    core::Status RollbackToSavepoint() override {
      work_ = savepoint_;
      return {};
    }
    core::Status PutIncidents(std::span<const core::IncidentWrite> writes) override {
      ++store_.puts_;
      if (store_.put_failures_ > 0) {
        --store_.put_failures_;
        if (store_.before_failure_) {
          store_.before_failure_(store_.state_);
          // The winner committed; a real store's re-read sees it.
          for (State* s : {&work_, &savepoint_}) {
            s->incidents = store_.state_.incidents;
            s->outbox.insert(store_.state_.outbox.begin(), store_.state_.outbox.end());
          }
        }
        return core::MakeError(store_.put_code_, "injected");
      }
      for (const auto& w : writes) {
        auto it = work_.incidents.find(w.incident.key);
        const uint64_t have = it == work_.incidents.end() ? 0 : it->second.version;
        if (have != w.expected_version) return core::MakeError(core::ErrorCode::kConflict, "cas");
        work_.incidents[w.incident.key] = w.incident;
      }
      return {};
    }
    core::Status AppendDecisions(std::string_view poll_id,
                                 std::span<const core::DecisionRecord> decisions) override {
      (void)poll_id;
      for (const auto& d : decisions) work_.decisions.emplace(std::pair(d.key, d.version), d);
      return {};
    }
    core::Status AddObservationMarks(std::span<const core::ObservationMark> marks) override {
      for (const auto& m : marks) work_.observation_marks.emplace(std::pair(m.key, m.poll_id), m);
      return {};
    }
    core::Result<std::vector<core::GenerationChannel>> NeverLiveChannels(
        std::span<const std::pair<std::string, uint64_t>> generations) override {
      std::map<std::tuple<std::string, uint64_t, std::string>, bool> all_shadow;
      for (const auto& [id, row] : work_.outbox) {
        for (const auto& [key, generation] : generations) {
          if (row.key != key || row.generation != generation) continue;
          auto [it, fresh] = all_shadow.try_emplace({key, generation, row.channel}, true);
          it->second = it->second && (row.status == core::OutboxStatus::kShadow ||
                                      row.status == core::OutboxStatus::kMuted ||
                                      row.status == core::OutboxStatus::kInhibited ||
                                      row.status == core::OutboxStatus::kCancelled ||
                                      (row.status == core::OutboxStatus::kSilenced &&
                                       row.transition != core::TransitionKind::kOpen));
        }
      }
      std::vector<core::GenerationChannel> out;
      for (const auto& [k, shadow] : all_shadow) {
        if (shadow) out.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k)});
      }
      return out;
    }
    core::Result<std::vector<core::GenerationChannel>> HeardChannels(
        std::span<const std::pair<std::string, uint64_t>> generations) override {
      std::set<std::tuple<std::string, uint64_t, std::string>> heard;
      for (const auto& [id, row] : work_.outbox) {
        for (const auto& [key, generation] : generations) {
          if (row.key != key || row.generation != generation) continue;
          if (row.status == core::OutboxStatus::kPending ||
              row.status == core::OutboxStatus::kInFlight ||
              row.status == core::OutboxStatus::kGrouped ||
              row.status == core::OutboxStatus::kSent ||
              row.status == core::OutboxStatus::kFolded) {
            heard.emplace(key, generation, row.channel);
          }
        }
      }
      std::vector<core::GenerationChannel> out;
      for (const auto& [key, generation, channel] : heard)
        out.push_back({key, generation, channel});
      return out;
    }
    core::Result<std::vector<core::HeldChannel>> InhibitedChannels(
        std::span<const std::pair<std::string, uint64_t>> generations) override {
      // The latest row's name, as the stores answer.
      std::map<std::tuple<std::string, uint64_t, std::string>,
               std::pair<core::WallTime, std::string>>
          held;
      for (const auto& [id, row] : work_.outbox) {
        if (row.status != core::OutboxStatus::kInhibited) continue;
        for (const auto& [key, generation] : generations) {
          if (row.key != key || row.generation != generation) continue;
          auto [it, fresh] =
              held.try_emplace({key, generation, row.channel}, row.created_at, row.last_error);
          if (!fresh && row.created_at >= it->second.first) {
            it->second = {row.created_at, row.last_error};
          }
        }
      }
      std::vector<core::HeldChannel> out;
      for (auto& [k, latest] : held) {
        out.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), latest.second});
      }
      return out;
    }
    core::Result<std::vector<core::Incident>> LoadOpenIncidentsOf(
        std::span<const std::string> conditions) override {
      std::vector<core::Incident> out;
      for (const auto& [key, incident] : work_.incidents) {
        if (incident.status != core::IncidentStatus::kOpen) continue;
        if (std::find(conditions.begin(), conditions.end(), incident.condition) !=
            conditions.end()) {
          out.push_back(incident);
        }
      }
      return out;
    }
    core::Result<uint64_t> CancelTierOpens(
        std::span<const std::pair<std::string, uint64_t>> generations,
        core::WallTime now) override {
      const auto waiting = [](const core::OutboxRow& row) {
        return row.status == core::OutboxStatus::kPending ||
               (row.status == core::OutboxStatus::kGrouped && row.group_row.empty());
      };
      // (key, generation, channel) of the tier opens about to be cancelled.
      std::set<std::tuple<std::string, uint64_t, std::string>> opens;
      for (const auto& [id, row] : work_.outbox) {
        for (const auto& [key, generation] : generations) {
          if (row.key == key && row.generation == generation && row.tier > 0 &&
              row.transition == core::TransitionKind::kOpen && waiting(row)) {
            opens.emplace(key, generation, row.channel);
          }
        }
      }
      uint64_t n = 0;
      for (auto& [id, row] : work_.outbox) {
        if (row.tier == 0 || !opens.contains({row.key, row.generation, row.channel})) continue;
        const bool open = row.transition == core::TransitionKind::kOpen && waiting(row);
        const bool follow_up = row.transition != core::TransitionKind::kOpen &&
                               row.status == core::OutboxStatus::kGrouped && row.group_row.empty();
        if (!open && !follow_up) continue;
        row.status = core::OutboxStatus::kCancelled;
        row.updated_at = now;
        ++n;
      }
      return n;
    }
    core::Status InsertOutbox(std::span<const core::OutboxRow> rows) override {
      for (const auto& r : rows) work_.outbox.emplace(r.idempotency_key, r);
      return {};
    }
    core::Result<bool> RecordPoll(const core::PollRecord& poll) override {
      return work_.polls.emplace(poll.poll_id, poll).second;
    }
    core::Result<uint64_t> PruneDecisions(core::WallTime cutoff) override {
      uint64_t n = 0;
      for (auto it = work_.decisions.begin(); it != work_.decisions.end();) {
        if (it->second.at < cutoff) {
          it = work_.decisions.erase(it);
          ++n;
        } else {
          ++it;
        }
      }
      std::erase_if(work_.observation_marks,
                    [cutoff](const auto& mark) { return mark.second.at < cutoff; });
      return n;
    }
    core::Result<uint64_t> PruneKeyGroups(core::WallTime cutoff) override {
      return static_cast<uint64_t>(std::erase_if(
          work_.key_groups, [cutoff](const auto& kg) { return kg.second.last_seen_at < cutoff; }));
    }
    core::Result<bool> AdmitToBudget(std::string_view tenant, std::string_view channel,
                                     core::WallTime window_start, uint32_t per_hour) override {
      const std::string id = std::string(tenant) + "|" + std::string(channel) + "|" +
                             std::to_string(window_start.time_since_epoch().count());
      return ++work_.budget_seen[id] <= per_hour;
    }
    core::Status RecordKeyGroups(std::span<const core::KeyGroup> seen,
                                 core::WallTime now) override {
      for (const core::KeyGroup& kg : seen) {
        auto [it, fresh] = work_.key_groups.try_emplace(
            std::pair(kg.key, kg.group_id), core::KeyGroupRow{kg.key, kg.group_id, now, now, 0});
        it->second.last_seen_at = now;
        ++it->second.polls;
      }
      return {};
    }
    core::Status RecordNewKeyGroups(std::span<const core::KeyGroup> seen,
                                    core::WallTime now) override {
      for (const core::KeyGroup& kg : seen) {
        work_.key_groups.try_emplace(std::pair(kg.key, kg.group_id),
                                     core::KeyGroupRow{kg.key, kg.group_id, now, now, 1});
      }
      return {};
    }
    core::Status PutSourceMark(std::string_view name, std::string_view value,
                               core::WallTime now) override {
      work_.marks.insert_or_assign(std::string(name), Mark{std::string(value), now});
      ++marks_written_;
      return {};
    }
    core::Result<std::vector<core::Silence>> LoadActiveSilences(core::WallTime now) override {
      std::vector<core::Silence> out;
      for (const auto& s : work_.silences) {
        if (core::IsActive(s, now)) out.push_back(s);
      }
      return out;
    }
    core::Result<bool> RememberCallbackEvent(std::string_view provider, std::string_view id,
                                             core::WallTime now,
                                             core::WallTime expires_at) override {
      std::erase_if(work_.callback_events, [&](const auto& e) { return e.second <= now; });
      return work_.callback_events.try_emplace({std::string(provider), std::string(id)}, expires_at)
          .second;
    }
    core::Status FencePoll(std::string_view lease, uint64_t token, core::WallTime at) override {
      store_.fence_calls_.push_back({std::string(lease), token, marks_written_});
      if (!store_.fence) return core::StoreTransaction::FencePoll(lease, token, at);
      return store_.fence(lease, token, at);
    }
    core::Status Commit() override {
      if (store_.commit_failures_ > 0) {
        --store_.commit_failures_;
        return core::MakeError(store_.commit_code_, "injected commit failure");
      }
      store_.state_ = work_;
      return {};
    }

   private:
    FakeIncidentStore& store_;
    State work_;
    State savepoint_;
    size_t marks_written_ = 0;
  };

  State state_;
  int put_failures_ = 0;
  core::ErrorCode put_code_ = core::ErrorCode::kConflict;
  std::function<void(State&)> before_failure_;
  int commit_failures_ = 0;
  core::ErrorCode commit_code_ = core::ErrorCode::kConflict;
  int begins_ = 0;
  int puts_ = 0;
  int count_failures_ = 0;
  std::vector<FenceCall> fence_calls_;
};

}  // namespace quell::testing
