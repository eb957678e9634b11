#include "policy_model.h"

#include <algorithm>
#include <sstream>
#include <utility>

namespace quell::testing::policy {
namespace {

constexpr Seconds kDay = 86400;
constexpr Seconds kBaseSecondOfDay = 9 * 3600;  // the base time is 09:00:00Z

// `*` matches any run of characters; everything else is literal (docs/operations.md, silences).
bool Glob(const std::string& pattern, const std::string& text) {
  if (pattern.empty()) return text.empty();
  if (pattern[0] == '*') {
    for (size_t skip = 0; skip <= text.size(); ++skip) {
      if (Glob(pattern.substr(1), text.substr(skip))) return true;
    }
    return false;
  }
  return !text.empty() && text[0] == pattern[0] && Glob(pattern.substr(1), text.substr(1));
}

}  // namespace

std::string Message::Describe() const {
  std::ostringstream out;
  out << FormatAt(at) << " " << channel;
  if (!group_key.empty()) out << " group " << group_key;
  out << " [";
  for (size_t i = 0; i < members.size(); ++i) {
    out << (i > 0 ? ", " : "") << members[i].transition << " " << members[i].key;
  }
  out << "]";
  if (open_after) out << " open_after=" << *open_after;
  return out.str();
}

PolicyModel::PolicyModel(PolicyConfig config) : config_(std::move(config)) {}

bool PolicyModel::IsOpen(const std::string& key) const {
  const auto it = incidents_.find(key);
  return it != incidents_.end() && it->second.open;
}

bool PolicyModel::Feed(const TraceLine& line, std::string* refused) {
  // The lines of one instant are one poll: what fell due before the instant goes out first,
  // and before each operator action.
  const bool starts_poll = !in_poll_ || line.at != poll_at_;
  if (line.kind != TraceLine::Kind::kObservation || starts_poll) {
    // The poll before sends what it wrote for its own instant, then the clock runs on.
    if (in_poll_) Deliver(poll_at_);
    DeliverUpTo(line.at);
  }
  in_poll_ = line.kind == TraceLine::Kind::kObservation;
  poll_at_ = line.at;
  clock_ = std::max(clock_, line.at);
  const bool applied = ApplyLine(line, refused);
  // An operator's action is sent as soon as it is written.
  if (line.kind != TraceLine::Kind::kObservation) Deliver(clock_);
  return applied;
}

void PolicyModel::DeliverUpTo(Seconds at) {
  for (;;) {
    const std::optional<Seconds> next = NextDue(clock_);
    if (!next || *next >= at) break;
    clock_ = *next;
    Deliver(clock_);
  }
  clock_ = std::max(clock_, at);
  Deliver(clock_);
}

bool PolicyModel::ApplyLine(const TraceLine& line, std::string* refused) {
  const auto refuse = [&](const std::string& why) {
    if (refused != nullptr) *refused = why;
    return false;
  };
  switch (line.kind) {
    case TraceLine::Kind::kObservation:
      Observe(line);
      return true;
    case TraceLine::Kind::kAck: {
      auto it = incidents_.find(line.key);
      if (it == incidents_.end() || !it->second.open) return refuse("ack of a key not open");
      Incident& incident = it->second;
      // An ack of an acked incident keeps the first.
      if (!incident.acked) {
        incident.acked = true;
        CancelScheduled(incident);
      }
      return true;
    }
    case TraceLine::Kind::kResolve: {
      auto it = incidents_.find(line.key);
      if (it == incidents_.end() || !it->second.open) return refuse("resolve of a key not open");
      Incident& incident = it->second;
      incident.open = false;
      incident.healthy = 0;
      // The hold: later failures are recorded, not paged, until the key is seen healthy or
      // the hold's bound passes.
      incident.held = true;
      incident.held_until.reset();
      if (line.hold_for > 0) incident.held_until = line.at + line.hold_for;
      Transition(incident, "resolve", line.at, Cause::kHand);
      return true;
    }
    case TraceLine::Kind::kSilence:
      silences_.push_back(Silence{line.key, line.exact, line.at, line.until});
      return true;
  }
  return true;
}

void PolicyModel::Finish(Seconds until) {
  // The last round at the last line's time, then each later due time up to `until`.
  Deliver(clock_);
  for (;;) {
    const std::optional<Seconds> next = NextDue(clock_);
    if (!next || *next > until) break;
    clock_ = *next;
    Deliver(clock_);
  }
}

void PolicyModel::Observe(const TraceLine& line) {
  Incident& incident = incidents_[line.key];
  incident.key = line.key;
  const Seconds now = line.at;
  if (!line.unhealthy) {
    // A failed poll says nothing about health: nothing changes.
  } else if (*line.unhealthy) {
    if (!incident.open) {
      if (incident.held && (!incident.held_until || now < *incident.held_until)) return;
      incident.held = false;
      incident.held_until.reset();
      if (++incident.pending < config_.unhealthy_polls_to_open) return;
      incident.pending = 0;
      ++incident.generation;
      incident.open = true;
      incident.opened_at = now;
      incident.last_notified = now;
      incident.acked = false;
      incident.healthy = 0;
      incident.channels.clear();
      Transition(incident, "open", now, Cause::kPoll);
    } else {
      incident.healthy = 0;
      // An acked incident is not renotified; its cooldown clock does not move either.
      if (now - incident.last_notified >= config_.cooldown && !incident.acked) {
        incident.last_notified = now;
        Transition(incident, "renotify", now, Cause::kPoll);
      }
    }
  } else {
    if (!incident.open) {
      incident.pending = 0;
      incident.held = false;  // seen healthy: the next failure is a new outage
      incident.held_until.reset();
      return;
    }
    if (++incident.healthy >= config_.healthy_polls_to_close) {
      incident.open = false;
      Transition(incident, "resolve", now, Cause::kPoll);
    }
  }
  if (incident.open) AnnounceOwedOpen(incident, now);
}

void PolicyModel::AnnounceOwedOpen(Incident& incident, Seconds now) {
  // A held open (maintenance, inhibition) goes out once, at the first poll that observes the
  // incident still open with nothing holding it.
  if (Inhibited(incident.key) || Muted(incident.key, now)) return;
  for (auto& [channel, state] : incident.channels) {
    if (state.told != Told::kOwed) continue;
    if (Silenced(incident.key, now)) {
      state.told = Told::kSilenced;
    } else {
      state.told = Told::kSent;
      Emit(incident, channel, "open", now, true);
    }
  }
}

void PolicyModel::Transition(Incident& incident, const std::string& kind, Seconds now,
                             Cause cause) {
  const std::string& key = incident.key;
  for (const TierSpec& tier : config_.tiers) {
    for (const std::string& channel : tier.channels) {
      ChannelState& state = incident.channels[channel];
      if (kind == "open") {
        const bool silenced = Silenced(key, now);
        const bool held = !silenced && (Inhibited(key) || Muted(key, now));
        if (held) {
          state.told = Told::kOwed;
        } else if (tier.after > 0) {
          // Written with the open, due later; judged against the silences of its writing.
          state.told = Told::kScheduled;
          state.due = now + tier.after;
          state.silenced_at_open = silenced;
        } else if (silenced) {
          state.told = Told::kSilenced;
        } else {
          state.told = Told::kSent;
          Emit(incident, channel, kind, now, true);
        }
        continue;
      }
      // Follow-ups go to the channels that were told of the open: a tier only once paged
      // (DESIGN.md), a flat channel also after a silenced open (operations.md: the next
      // transition sends normally).
      const bool reached = tier.after == 0 || now >= incident.opened_at + tier.after;
      const bool told =
          state.told == Told::kSent || (tier.after == 0 && state.told == Told::kSilenced);
      if (!reached || !told) continue;
      if (Silenced(key, now)) {
        // A poll's silenced resolve joins the group of a channel that heard of this outage,
        // so the group's next message says the member recovered (channels.md, grouping).
        const ChannelSpec* spec = config_.Channel(channel);
        if (cause == Cause::kPoll && kind == "resolve" && state.heard && spec != nullptr &&
            spec->group) {
          Emit(incident, channel, kind, now, true);
        }
        continue;
      }
      // Precedence: silences, then inhibition, then maintenance. An inhibited incident's
      // renotifies are held, its resolve of a sent open is not (configuration.md, Inhibition).
      if (cause == Cause::kPoll && Inhibited(key)) {
        if (kind == "renotify") continue;
      } else if (Muted(key, now)) {
        continue;
      }
      Emit(incident, channel, kind, now, true);
    }
  }
  if (kind == "resolve") CancelScheduled(incident);
}

void PolicyModel::CancelScheduled(Incident& incident) {
  for (auto& [channel, state] : incident.channels) {
    if (state.told != Told::kScheduled) continue;
    // A tier's open written in a silence stays a silenced row; the others are cancelled.
    state.told = state.silenced_at_open ? Told::kSilenced : Told::kCancelled;
  }
}

void PolicyModel::Emit(Incident& incident, const std::string& channel, const std::string& kind,
                       Seconds now, bool may_group) {
  incident.channels[channel].heard = true;
  const ChannelSpec* spec = config_.Channel(channel);
  if (spec != nullptr && spec->group && may_group) {
    groups_[{channel, GroupKeyOf(incident.key, *spec->group)}].waiting.push_back(
        Waiting{Member{incident.key, kind}, now});
    return;
  }
  messages_.push_back(Message{now, channel, "", {Member{incident.key, kind}}, std::nullopt});
}

void PolicyModel::Deliver(Seconds now) {
  for (auto& [key, incident] : incidents_) {
    for (auto& [channel, state] : incident.channels) {
      if (state.told != Told::kScheduled || state.due > now) continue;
      // Still scheduled: not acked, not resolved (either would have cancelled it).
      if (state.silenced_at_open) {
        state.told = Told::kSilenced;
      } else {
        state.told = Told::kSent;
        state.heard = true;
        messages_.push_back(Message{state.due, channel, "", {Member{key, "open"}}, std::nullopt});
      }
    }
  }
  for (auto& [where, group] : groups_) {
    if (group.waiting.empty()) continue;
    const GroupSpec& spec = *config_.Channel(where.first)->group;
    Seconds due = group.waiting.front().created + spec.wait;
    if (group.last_due) due = std::max(due, *group.last_due + spec.interval);
    if (due > now) continue;
    Message message{due, where.first, where.second, {}, 0};
    for (const Waiting& waiting : group.waiting) {
      message.members.push_back(waiting.member);
      group.latest[waiting.member.key] = waiting.member.transition;
    }
    std::sort(message.members.begin(), message.members.end());
    int open_after = 0;
    for (const auto& [key, transition] : group.latest) {
      if (IsOpen(key)) ++open_after;
    }
    message.open_after = open_after;
    messages_.push_back(std::move(message));
    group.last_due = due;
    group.waiting.clear();
  }
}

std::optional<Seconds> PolicyModel::NextDue(Seconds after) const {
  std::optional<Seconds> next;
  const auto consider = [&](Seconds at) {
    if (at > after && (!next || at < *next)) next = at;
  };
  for (const auto& [key, incident] : incidents_) {
    for (const auto& [channel, state] : incident.channels) {
      if (state.told == Told::kScheduled) consider(state.due);
    }
  }
  for (const auto& [where, group] : groups_) {
    if (group.waiting.empty()) continue;
    const GroupSpec& spec = *config_.Channel(where.first)->group;
    Seconds due = group.waiting.front().created + spec.wait;
    if (group.last_due) due = std::max(due, *group.last_due + spec.interval);
    consider(due);
  }
  return next;
}

bool PolicyModel::Silenced(const std::string& key, Seconds now) const {
  return std::any_of(silences_.begin(), silences_.end(), [&](const Silence& silence) {
    return silence.from <= now && now < silence.until &&
           (silence.exact ? silence.pattern == key : Glob(silence.pattern, key));
  });
}

bool PolicyModel::Muted(const std::string& key, Seconds now) const {
  if (!config_.maintenance || !Glob(config_.maintenance->keys, key)) return false;
  const Seconds second_of_day = (kBaseSecondOfDay + now) % kDay;
  return config_.maintenance->start <= second_of_day && second_of_day < config_.maintenance->end;
}

bool PolicyModel::Inhibited(const std::string& key) const {
  if (!config_.inhibition || ConditionOf(key) != "app") return false;
  return std::any_of(incidents_.begin(), incidents_.end(), [&](const auto& entry) {
    const Incident& other = entry.second;
    return other.open && ConditionOf(other.key) == "infra" && TenantOf(other.key) == TenantOf(key);
  });
}

std::string PolicyModel::GroupKeyOf(const std::string& key, const GroupSpec& group) const {
  return group.by + "=" + (group.by == "condition" ? ConditionOf(key) : TenantOf(key));
}

}  // namespace quell::testing::policy
