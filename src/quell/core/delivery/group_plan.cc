#include "quell/core/delivery/group_plan.h"

#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace quell::core {

uint64_t OpenAfter(std::span<const GroupMemberFact> taken, std::span<const GroupMemberFact> ready) {
  std::unordered_map<std::string_view, const GroupMemberFact*> latest;
  latest.reserve(taken.size() + ready.size());
  const auto note = [&](const GroupMemberFact& member) {
    auto [it, added] = latest.try_emplace(member.key, &member);
    if (!added && std::tie(it->second->generation, it->second->version) <
                      std::tie(member.generation, member.version)) {
      it->second = &member;
    }
  };
  for (const GroupMemberFact& member : taken) note(member);
  for (const GroupMemberFact& member : ready) note(member);
  uint64_t open = 0;
  for (const auto& entry : latest) {
    if (entry.second->transition != TransitionKind::kResolve) ++open;
  }
  return open;
}

std::optional<GroupMessage> PlanGroupMessage(const GroupFacts& facts, const GroupPolicy& policy) {
  if (facts.ready.empty()) return std::nullopt;
  std::optional<WallTime> last;
  if (facts.state) last = facts.state->last_message_at;
  const WallTime due = GroupDueAt(policy, facts.first_waiting, last);
  if (due > facts.at) return std::nullopt;
  const uint64_t sequence = facts.state ? facts.state->last_sequence + 1 : 1;
  const StoredEpisode stored = facts.state ? facts.state->episode : StoredEpisode{};
  const uint64_t episode = GroupEpisodeOf(facts.state.has_value(), stored, sequence);
  std::vector<TransitionKind> transitions;
  transitions.reserve(facts.ready.size());
  for (const GroupMemberFact& member : facts.ready) transitions.push_back(member.transition);
  const uint64_t open_after = OpenAfter(facts.taken, facts.ready);
  GroupMessage message{
      .row = MakeGroupRow(facts.channel, facts.group_key, sequence, GroupTransition(transitions),
                          open_after, facts.at, episode),
      .state_after = GroupState{.last_sequence = sequence,
                                .last_message_at = due,
                                .episode = GroupEpisodeAfter(episode, open_after)}};
  message.row.next_attempt_at = due;
  return message;
}

GroupPlanner GroupPlannerFor(Duration group_wait, Duration group_interval) {
  return
      [timing =
           GroupPolicy{.group_by = {}, .group_wait = group_wait, .group_interval = group_interval}](
          const GroupFacts& facts) { return PlanGroupMessage(facts, timing); };
}

}  // namespace quell::core
