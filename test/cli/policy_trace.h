// Random traces for the model-based test of the notification policy (policy_model_e2e_test):
// a config drawn from a few shapes, observations of a few keys over some polls, and operator
// actions between them, all from one seed. Nothing here knows how quell decides.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace quell::testing::policy {

// Seconds after the trace's base time, 2026-12-01T09:00:00Z (a Tuesday): the model's clock.
using Seconds = int64_t;

// RFC 3339 (UTC, whole seconds) of base + `at`; and back, nullopt for text that is not one.
std::string FormatAt(Seconds at);
std::optional<Seconds> ParseAt(const std::string& text);

struct GroupSpec {
  std::string by;  // "tenant" or "condition"
  Seconds wait = 30;
  Seconds interval = 120;
};

struct ChannelSpec {
  std::string name;
  std::optional<GroupSpec> group;
};

// An escalation tier; a config with one tier after 0s is a flat channel list.
struct TierSpec {
  Seconds after = 0;
  std::vector<std::string> channels;
};

// A recurring maintenance window in UTC, every weekday: [start, end) seconds of the day.
struct WindowSpec {
  std::string keys;  // a glob
  Seconds start = 0;
  Seconds end = 0;
};

struct PolicyConfig {
  Seconds cooldown = 300;
  int healthy_polls_to_close = 2;
  int unhealthy_polls_to_open = 1;
  std::vector<ChannelSpec> channels;
  std::vector<TierSpec> tiers;  // the defaults' route, for every condition
  // Condition "infra" inhibits condition "app" by equal tenant; otherwise only "app".
  bool inhibition = false;
  std::optional<WindowSpec> maintenance;

  const ChannelSpec* Channel(const std::string& name) const;
  std::string Yaml() const;
  std::string Describe() const;
};

struct TraceLine {
  enum class Kind { kObservation, kAck, kResolve, kSilence };
  Kind kind = Kind::kObservation;
  Seconds at = 0;
  std::string key;  // "<tenant>:<condition>"; a silence's pattern
  // kObservation: unhealthy, healthy, or nullopt for a failed poll (unknown).
  std::optional<bool> unhealthy;
  Seconds hold_for = 0;  // kResolve: the hold's bound ("for"); 0 for none
  bool exact = false;    // kSilence: "match":"exact"
  Seconds until = 0;     // kSilence

  std::string Json() const;
};

// "t1:app" -> "t1" and "app".
std::string TenantOf(const std::string& key);
std::string ConditionOf(const std::string& key);

struct Trace {
  uint64_t seed = 0;
  PolicyConfig config;
  std::vector<TraceLine> lines;  // in time order
  Seconds until = 0;             // replay --until: the tail in which what is due goes out

  std::string Jsonl() const;
};

// The trace of `seed`: the same on every machine and run.
Trace GenerateTrace(uint64_t seed);

}  // namespace quell::testing::policy
