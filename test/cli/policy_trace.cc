#include "policy_trace.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <utility>

#include "policy_model.h"

namespace quell::testing::policy {
namespace {

// 2026-12-01T09:00:00Z in Unix seconds.
constexpr int64_t kBaseUnix = 1796115600;

// SplitMix64: the same numbers on every platform, which std's distributions do not promise.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // 0 <= result < n.
  uint64_t Below(uint64_t n) { return Next() % n; }
  // True with probability percent / 100.
  bool Chance(uint64_t percent) { return Below(100) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& from) {
    return from[Below(from.size())];
  }

 private:
  uint64_t state_;
};

std::string Duration(Seconds seconds) { return std::to_string(seconds) + "s"; }

std::string JsonString(const std::string& text) {
  // Keys, patterns and names here are plain ASCII without quotes or backslashes.
  return "\"" + text + "\"";
}

}  // namespace

std::string FormatAt(Seconds at) {
  using namespace std::chrono;
  const sys_seconds time{seconds(kBaseUnix + at)};
  const sys_days day = floor<days>(time);
  const year_month_day date{day};
  const hh_mm_ss<seconds> clock{time - day};
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02ld:%02ld:%02lldZ", int(date.year()),
                unsigned(date.month()), unsigned(date.day()), long(clock.hours().count()),
                long(clock.minutes().count()), static_cast<long long>(clock.seconds().count()));
  return text;
}

std::optional<Seconds> ParseAt(const std::string& text) {
  int year = 0;
  unsigned month = 0;
  unsigned day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  // Whole seconds only: the trace never makes anything fall due between seconds.
  if (text.size() != 20 || std::sscanf(text.c_str(), "%4d-%2u-%2uT%2d:%2d:%2dZ", &year, &month,
                                       &day, &hour, &minute, &second) != 6) {
    return std::nullopt;
  }
  using namespace std::chrono;
  const sys_days date{std::chrono::year(year) / std::chrono::month(month) / std::chrono::day(day)};
  const int64_t unix =
      date.time_since_epoch().count() * 86400LL + hour * 3600LL + minute * 60LL + second;
  return unix - kBaseUnix;
}

const ChannelSpec* PolicyConfig::Channel(const std::string& name) const {
  for (const ChannelSpec& channel : channels) {
    if (channel.name == name) return &channel;
  }
  return nullptr;
}

std::string PolicyConfig::Yaml() const {
  std::ostringstream out;
  out << "defaults:\n"
      << "  cooldown: " << Duration(cooldown) << "\n"
      << "  healthy_polls_to_close: " << healthy_polls_to_close << "\n"
      << "  unhealthy_polls_to_open: " << unhealthy_polls_to_open << "\n";
  const auto list = [](const std::vector<std::string>& names) {
    std::string text = "[";
    for (size_t i = 0; i < names.size(); ++i) text += (i > 0 ? ", " : "") + names[i];
    return text + "]";
  };
  if (tiers.size() == 1 && tiers[0].after == 0) {
    out << "  channels: " << list(tiers[0].channels) << "\n";
  } else {
    out << "  escalation:\n";
    for (const TierSpec& tier : tiers) {
      out << "    - after: " << Duration(tier.after) << "\n"
          << "      channels: " << list(tier.channels) << "\n";
    }
  }
  out << "conditions:\n  - name: app\n    type: error_groups\n";
  if (inhibition) {
    out << "    inhibited_by:\n      - condition: infra\n        equal: [tenant]\n"
        << "  - name: infra\n    type: error_groups\n";
  }
  out << "channels:\n";
  for (const ChannelSpec& channel : channels) {
    out << "  - name: " << channel.name << "\n"
        << "    type: webhook\n"
        << "    url: http://127.0.0.1:9/never-contacted\n"
        << "    signing: off\n";
    if (channel.group) {
      out << "    group_by: [" << channel.group->by << "]\n"
          << "    group_wait: " << Duration(channel.group->wait) << "\n"
          << "    group_interval: " << Duration(channel.group->interval) << "\n";
    }
  }
  if (maintenance) {
    const auto clock = [](Seconds second_of_day) {
      char text[48];
      std::snprintf(text, sizeof text, "%02lld:%02lld",
                    static_cast<long long>(second_of_day / 3600),
                    static_cast<long long>(second_of_day % 3600 / 60));
      return std::string(text);
    };
    out << "maintenance:\n  - name: model-window\n"
        << "    keys: \"" << maintenance->keys << "\"\n"
        << "    time_zone: UTC\n"
        << "    weekdays: [monday, tuesday, wednesday, thursday, friday, saturday, sunday]\n"
        << "    times: [\"" << clock(maintenance->start) << "-" << clock(maintenance->end)
        << "\"]\n";
  }
  return out.str();
}

std::string PolicyConfig::Describe() const {
  std::ostringstream out;
  out << "cooldown " << cooldown << "s, close after " << healthy_polls_to_close
      << " healthy, open after " << unhealthy_polls_to_open << " unhealthy";
  for (const TierSpec& tier : tiers) {
    out << "; tier after " << tier.after << "s:";
    for (const std::string& name : tier.channels) {
      out << " " << name;
      if (const ChannelSpec* channel = Channel(name); channel != nullptr && channel->group) {
        out << "(group_by " << channel->group->by << ", wait " << channel->group->wait
            << "s, interval " << channel->group->interval << "s)";
      }
    }
  }
  if (inhibition) out << "; app inhibited by infra (equal tenant)";
  if (maintenance) {
    out << "; maintenance " << maintenance->keys << " " << maintenance->start << "-"
        << maintenance->end << " s of day";
  }
  return out.str();
}

std::string TraceLine::Json() const {
  std::string out = "{\"at\":" + JsonString(FormatAt(at)) + ",\"key\":" + JsonString(key);
  switch (kind) {
    case Kind::kObservation:
      out += ",\"unhealthy\":";
      out += !unhealthy ? "null" : *unhealthy ? "true" : "false";
      out += ",\"condition\":" + JsonString(ConditionOf(key)) +
             ",\"labels\":{\"tenant\":" + JsonString(TenantOf(key)) + "}";
      break;
    case Kind::kAck:
      out += R"(,"action":"ack","by":"model")";
      break;
    case Kind::kResolve:
      out += R"(,"action":"resolve","by":"model")";
      if (hold_for > 0) out += ",\"for\":" + JsonString(Duration(hold_for));
      break;
    case Kind::kSilence:
      out += R"(,"action":"silence","by":"model","reason":"model test","until":)" +
             JsonString(FormatAt(until));
      if (exact) out += R"(,"match":"exact")";
      break;
  }
  return out + "}";
}

std::string TenantOf(const std::string& key) { return key.substr(0, key.find(':')); }

std::string ConditionOf(const std::string& key) { return key.substr(key.find(':') + 1); }

std::string Trace::Jsonl() const {
  std::string out;
  for (const TraceLine& line : lines) out += line.Json() + "\n";
  return out;
}

Trace GenerateTrace(uint64_t seed) {
  Random random(seed * 0x2545f4914f6cdd1dULL + 1);
  Trace trace;
  trace.seed = seed;
  PolicyConfig& config = trace.config;
  config.cooldown = random.Pick<Seconds>({120, 180, 300});
  config.healthy_polls_to_close = static_cast<int>(1 + random.Below(3));
  config.unhealthy_polls_to_open = random.Chance(30) ? 2 : 1;

  const auto maybe_group = [&]() -> std::optional<GroupSpec> {
    if (!random.Chance(55)) return std::nullopt;
    return GroupSpec{random.Chance(50) ? "tenant" : "condition",
                     random.Pick<Seconds>({0, 30, 60, 90}), random.Pick<Seconds>({60, 120, 300})};
  };
  // Three shapes; escalation stays apart from the holds (maintenance, inhibition), whose late
  // opens to a tier the docs leave unsaid.
  const uint64_t shape = random.Below(3);
  std::vector<std::string> keys = {"t1:app", "t2:app"};
  if (random.Chance(50)) keys.push_back("t3:app");
  if (shape == 1) {
    config.channels = {{"chat", maybe_group()}, {"pager", std::nullopt}};
    config.tiers = {{0, {"chat"}}, {random.Pick<Seconds>({120, 180, 300}), {"pager"}}};
  } else {
    config.channels = {{"ops", maybe_group()}};
    if (random.Chance(30)) config.channels.push_back({"audit", std::nullopt});
    std::vector<std::string> names;
    for (const ChannelSpec& channel : config.channels) names.push_back(channel.name);
    config.tiers = {{0, names}};
    if (shape == 2) {
      config.inhibition = true;
      keys.insert(keys.begin(), {"t1:infra", "t2:infra"});  // an instant's inhibitors first
    }
    if (random.Chance(40)) {
      const Seconds start = 9 * 3600 + 60 * static_cast<Seconds>(4 + random.Below(10));
      config.maintenance = WindowSpec{random.Pick<std::string>({"*", "t1:*", "*:app"}), start,
                                      start + random.Pick<Seconds>({300, 600})};
    }
  }

  // Each key fails and recovers in runs; now and then a poll fails or leaves a key out.
  PolicyModel model(config);
  std::vector<bool> failing(keys.size(), false);
  const int polls = static_cast<int>(15 + random.Below(21));
  for (int poll = 0; poll < polls; ++poll) {
    const Seconds at = 60LL * poll;
    for (size_t k = 0; k < keys.size(); ++k) {
      if (random.Chance(ConditionOf(keys[k]) == "infra" ? 15 : 25)) failing[k] = !failing[k];
      if (random.Chance(8)) continue;
      TraceLine line;
      line.at = at;
      line.key = keys[k];
      if (!random.Chance(6)) line.unhealthy = failing[k];
      model.Feed(line);
      trace.lines.push_back(std::move(line));
    }
    // Operator actions between polls, each at an instant of its own.
    for (Seconds offset = 20; offset <= 25; offset += 5) {
      const uint64_t roll = random.Below(100);
      TraceLine line;
      line.at = at + offset;
      std::vector<std::string> open;
      for (const std::string& key : keys) {
        if (model.IsOpen(key)) open.push_back(key);
      }
      if (roll < 9 && !open.empty()) {
        line.kind = TraceLine::Kind::kAck;
        line.key = random.Pick(open);
      } else if (roll < 13 && !open.empty()) {
        line.kind = TraceLine::Kind::kResolve;
        line.key = random.Pick(open);
        line.hold_for = random.Pick<Seconds>({0, 0, 120, 240});
      } else if (roll < 18) {
        line.kind = TraceLine::Kind::kSilence;
        line.exact = random.Chance(40);
        line.key = line.exact ? random.Pick(keys)
                              : random.Pick<std::string>({"t1:*", "t2:*", "*:app", "*"});
        // Ends between instants: at an offset of 35 or 40 seconds, where nothing happens.
        line.until = line.at + 60 * static_cast<Seconds>(1 + random.Below(5)) + 15;
      } else {
        continue;
      }
      model.Feed(line);
      trace.lines.push_back(std::move(line));
    }
  }
  trace.until = 60LL * polls + 3600;
  return trace;
}

}  // namespace quell::testing::policy
