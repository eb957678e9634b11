#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "quell/core/ports/operator_store.h"

namespace quell::testing {

// An in-memory OperatorStore: silences, and the channel uses a test declares per generation.
// Dead-row methods only answer kNotFound and the per-key reads are empty (the contract tests
// cover them on real stores).
class FakeOperatorStore : public core::OperatorStore {
 public:
  core::Result<uint64_t> AddSilence(const core::Silence& silence) override {
    core::Silence stored = silence;
    stored.id = ++last_id_;
    silences_.push_back(stored);
    return stored.id;
  }
  core::Result<std::vector<core::Silence>> ListSilences(
      std::optional<core::WallTime> active_at) override {
    std::vector<core::Silence> out;
    for (const auto& s : silences_) {
      if (!active_at || core::IsActive(s, *active_at)) out.push_back(s);
    }
    return out;
  }
  core::Status RemoveSilence(uint64_t id) override {
    for (auto it = silences_.begin(); it != silences_.end(); ++it) {
      if (it->id == id) {
        silences_.erase(it);
        return {};
      }
    }
    return core::MakeError(core::ErrorCode::kNotFound, "no silence " + std::to_string(id));
  }
  core::Result<core::OutboxStatus> RetryDead(std::string_view key, core::WallTime) override {
    return core::MakeError(core::ErrorCode::kNotFound, "no outbox row " + std::string(key));
  }
  core::Result<RetriedRows> RetryAllDead(std::optional<std::string_view>, core::WallTime) override {
    return RetriedRows{};
  }
  core::Result<core::IncidentPage> ListIncidentPage(const core::IncidentPageQuery&) override {
    return core::IncidentPage{};  // the contract tests cover the list on real stores
  }
  core::Result<uint64_t> AddOneOffWindow(const core::OneOffWindow& window) override {
    core::OneOffWindow stored = window;
    stored.id = ++last_id_;
    windows.push_back(stored);
    return stored.id;
  }
  core::Result<std::vector<core::OneOffWindow>> ListOneOffWindows(
      core::WallTime ends_after) override {
    std::vector<core::OneOffWindow> out;
    for (const auto& w : windows) {
      if (w.ends_at > ends_after) out.push_back(w);
    }
    return out;
  }
  core::Result<core::OneOffWindow> ExpireOneOffWindow(uint64_t id, core::WallTime now) override {
    for (auto& w : windows) {
      if (w.id != id) continue;
      if (w.ends_at <= now) return core::MakeError(core::ErrorCode::kConflict, "ended");
      w.ends_at = now;
      return w;
    }
    return core::MakeError(core::ErrorCode::kNotFound, "no window " + std::to_string(id));
  }
  std::vector<core::OneOffWindow> windows;
  core::Status DropDead(std::string_view key, core::WallTime) override {
    return core::MakeError(core::ErrorCode::kNotFound, "no outbox row " + std::string(key));
  }
  core::Result<std::vector<core::ChannelUse>> GenerationChannels(std::string_view key,
                                                                 uint64_t generation) override {
    auto it = uses.find(std::string(key) + "#" + std::to_string(generation));
    if (it == uses.end()) return std::vector<core::ChannelUse>{};
    return it->second;
  }
  core::Result<std::vector<core::IncidentGeneration>> OpenMembersOfMessage(
      std::string_view) override {
    return std::vector<core::IncidentGeneration>{};
  }
  core::Result<std::vector<core::IncidentGeneration>> OpenMembersOfGroup(std::string_view,
                                                                         std::string_view,
                                                                         std::optional<uint64_t>,
                                                                         core::WallTime) override {
    return std::vector<core::IncidentGeneration>{};
  }
  core::Result<std::vector<core::IncidentGeneration>> GroupMemberKeys(std::string_view,
                                                                      std::string_view,
                                                                      size_t) override {
    return std::vector<core::IncidentGeneration>{};
  }
  core::Result<std::vector<core::LoggedDecision>> RecentDecisions(std::string_view,
                                                                  size_t) override {
    return std::vector<core::LoggedDecision>{};
  }
  core::Result<std::vector<core::OutboxRow>> RecentOutbox(std::string_view, size_t) override {
    return std::vector<core::OutboxRow>{};
  }
  core::Result<std::vector<core::OutboxRow>> GroupMessagesOf(std::string_view, size_t) override {
    return std::vector<core::OutboxRow>{};
  }
  core::Result<core::StoredTimeline> ReadTimeline(std::string_view, size_t) override {
    return core::StoredTimeline{};
  }

  std::map<std::string, std::vector<core::ChannelUse>> uses;  // "key#generation"
  const std::vector<core::Silence>& silences() const { return silences_; }

 private:
  uint64_t last_id_ = 0;
  std::vector<core::Silence> silences_;
};

}  // namespace quell::testing
