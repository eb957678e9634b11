#include "quell/core/delivery/grouping.h"

#include <algorithm>
#include <array>

#include "quell/core/text/json_escape.h"

namespace quell::core {
namespace {

void AppendEscaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
}

}  // namespace

bool IsGroupKey(std::string_view key) { return key.starts_with(kGroupKeyPrefix); }

std::string GroupKeyOf(const GroupPolicy& policy, std::string_view condition,
                       const Labels& labels) {
  std::string key;
  for (const std::string& name : policy.group_by) {
    if (!key.empty()) key += ',';
    AppendEscaped(key, name);
    key += '=';
    if (name == kConditionGroupLabel) {
      AppendEscaped(key, condition);
    } else if (auto value = FindLabel(labels, name)) {
      AppendEscaped(key, *value);
    }
  }
  return key;
}

std::vector<std::pair<std::string, std::string>> GroupKeyLabels(std::string_view group_key) {
  std::vector<std::pair<std::string, std::string>> out;
  if (group_key.empty()) return out;
  std::pair<std::string, std::string> pair;
  bool in_value = false;
  for (size_t i = 0; i < group_key.size(); ++i) {
    const char c = group_key[i];
    if (c == '\\' && i + 1 < group_key.size()) {
      (in_value ? pair.second : pair.first) += group_key[++i];
    } else if (c == '=' && !in_value) {
      in_value = true;
    } else if (c == ',') {
      out.push_back(std::move(pair));
      pair = {};
      in_value = false;
    } else {
      (in_value ? pair.second : pair.first) += c;
    }
  }
  out.push_back(std::move(pair));
  return out;
}

WallTime GroupDueAt(const GroupPolicy& policy, WallTime first_waiting,
                    std::optional<WallTime> last_message_at) {
  const WallTime after_wait = first_waiting + policy.group_wait;
  if (!last_message_at) return after_wait;
  return std::max(after_wait, *last_message_at + policy.group_interval);
}

TransitionKind GroupTransition(std::span<const TransitionKind> members) {
  const auto has = [&](TransitionKind kind) {
    return std::find(members.begin(), members.end(), kind) != members.end();
  };
  if (has(TransitionKind::kOpen)) return TransitionKind::kOpen;
  if (has(TransitionKind::kRenotify)) return TransitionKind::kRenotify;
  return TransitionKind::kResolve;
}

uint64_t GroupEpisodeOf(bool had_state, StoredEpisode stored, uint64_t sequence) {
  if (!had_state) return sequence;
  if (!stored) return 0;
  return *stored == 0 ? sequence : *stored;
}

StoredEpisode GroupEpisodeAfter(uint64_t episode, uint64_t open_after) {
  if (open_after == 0) return uint64_t{0};
  if (episode == 0) return std::nullopt;
  return episode;
}

OutboxRow MakeGroupRow(std::string_view channel, std::string_view group_key, uint64_t sequence,
                       TransitionKind transition, uint64_t open_after, WallTime now,
                       uint64_t episode) {
  OutboxRow row;
  row.kind = OutboxRowKind::kGroup;
  row.key = std::string(kGroupKeyPrefix) + std::string(group_key);
  row.generation = sequence;
  row.version = 1;
  row.transition = transition;
  row.channel = std::string(channel);
  row.idempotency_key = OutboxIdempotencyKey(row.key, row.generation, row.version, row.channel);
  row.payload = "{\"group\":{\"key\":";
  AppendJsonString(row.payload, group_key);
  row.payload += ",\"channel\":";
  AppendJsonString(row.payload, channel);
  row.payload += ",\"sequence\":";
  row.payload += std::to_string(sequence);
  row.payload += ",\"labels\":{";
  bool first = true;
  for (const auto& [name, value] : GroupKeyLabels(group_key)) {
    if (!first) row.payload += ',';
    first = false;
    AppendJsonString(row.payload, name);
    row.payload += ':';
    AppendJsonString(row.payload, value);
  }
  row.payload += "},\"open_after\":";
  row.payload += std::to_string(open_after);
  if (episode != 0) {
    row.payload += ",\"episode\":";
    row.payload += std::to_string(episode);
  }
  row.payload += "}}";
  row.status = OutboxStatus::kPending;
  row.next_attempt_at = now;
  row.created_at = now;
  row.updated_at = now;
  return row;
}

std::string_view GroupKeyOfRow(const OutboxRow& group) {
  std::string_view key = group.key;
  if (key.starts_with(kGroupKeyPrefix)) key.remove_prefix(kGroupKeyPrefix.size());
  return key;
}

std::string GroupPayload(const OutboxRow& group, std::span<const OutboxRow> members,
                         const std::optional<GroupStanding>& standing) {
  std::array<size_t, 3> counts{};  // open, renotify, resolve
  for (const OutboxRow& member : members) {
    switch (member.transition) {
      case TransitionKind::kOpen:
        ++counts[0];
        break;
      case TransitionKind::kRenotify:
        ++counts[1];
        break;
      case TransitionKind::kResolve:
        ++counts[2];
        break;
    }
  }
  // The stored payload is MakeGroupRow's, which ends with the two braces closing "group".
  std::string_view stored = group.payload;
  if (stored.ends_with("}}")) stored.remove_suffix(2);
  std::string out(stored);
  out += ",\"counts\":{\"members\":";
  out += std::to_string(members.size());
  out += ",\"open\":";
  out += std::to_string(counts[0]);
  out += ",\"renotify\":";
  out += std::to_string(counts[1]);
  out += ",\"resolve\":";
  out += std::to_string(counts[2]);
  out += '}';
  if (standing) {
    out += ",\"standing\":{\"open\":";
    out += std::to_string(standing->open);
    out += ",\"silenced\":";
    out += std::to_string(standing->silenced);
    out += '}';
  }
  out += ",\"members\":[";
  for (size_t i = 0; i < members.size(); ++i) {
    if (i > 0) out += ',';
    out += members[i].payload.empty() ? std::string_view("{}") : members[i].payload;
  }
  out += "]}}";
  return out;
}

}  // namespace quell::core
