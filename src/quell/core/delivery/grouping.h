#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/engine/decision.h"
#include "quell/core/engine/labels.h"
#include "quell/core/ports/channel.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/ports/outbox_store.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A channel's grouping: transitions whose incidents share the values of `group_by` (label
// names, or "condition" for the incident's condition) wait on the channel as members of one
// group and go out together in one group message. The first message of a group waits
// `group_wait` for siblings; while members keep changing, the group sends at most one message
// per `group_interval`.
struct GroupPolicy {
  std::vector<std::string> group_by;  // in the config's order; never empty
  Duration group_wait = std::chrono::seconds(30);
  Duration group_interval = std::chrono::minutes(5);
};

// The name in group_by that stands for the incident's condition rather than a label.
inline constexpr std::string_view kConditionGroupLabel = "condition";

// Group rows have keys "{group}:<group key>"; like digest rows, no incident key holds a brace.
inline constexpr std::string_view kGroupKeyPrefix = "{group}:";
bool IsGroupKey(std::string_view key);

// "name=value,name=value" over group_by in its order; a missing label gives an empty value.
// '\\', ',' and '=' in names and values are escaped with '\\', so two different label sets
// never give one key.
std::string GroupKeyOf(const GroupPolicy& policy, std::string_view condition, const Labels& labels);

// The (name, value) pairs of a group key from GroupKeyOf, in its order, unescaped.
std::vector<std::pair<std::string, std::string>> GroupKeyLabels(std::string_view group_key);

// When the group's next message is due: the first waiting member's commit time + group_wait,
// never earlier than the previous message + group_interval. A group whose last message is
// older than group_interval therefore starts over with group_wait.
WallTime GroupDueAt(const GroupPolicy& policy, WallTime first_waiting,
                    std::optional<WallTime> last_message_at);

// A group message's transition: open if any member opened, else renotify if any, else resolve.
TransitionKind GroupTransition(std::span<const TransitionKind> members);

// The group row of (channel, group key, sequence): key "{group}:" + group key, generation =
// sequence, version 1, pending and due now, with the idempotency key every writer derives
// alike. Its stored payload names the group, `open_after` (the group's keys still open once
// this message is read) and, when not 0, `episode` (GroupEpisodeOf); GroupPayload adds the
// members at dispatch.
OutboxRow MakeGroupRow(std::string_view channel, std::string_view group_key, uint64_t sequence,
                       TransitionKind transition, uint64_t open_after, WallTime now,
                       uint64_t episode = 0);

// A group's episode on a channel: its messages from the one after which a member is open to
// the one after which none is, numbered by the first one's sequence. A pager keeps one alert
// per episode (PagerDuty's dedup key names it: core/delivery/callback_key.h), so a callback
// about an alert of an earlier episode never touches the members of a later one.
// What the store keeps of it per (channel, group) between messages: nullopt for a group whose
// last message was sent before episodes were kept (its alert, if still open, keeps its key
// without an episode until it ends), 0 once a message left nothing open, else the episode.
using StoredEpisode = std::optional<uint64_t>;

// The episode of message `sequence`, given what the store kept after the previous message
// (`had_state` false: the group's first message). 0: an episode begun before episodes were
// kept, whose messages carry none.
uint64_t GroupEpisodeOf(bool had_state, StoredEpisode stored, uint64_t sequence);

// What the store keeps after a message of `episode` left `open_after` keys open.
StoredEpisode GroupEpisodeAfter(uint64_t episode, uint64_t open_after);

// The group key a group row (from MakeGroupRow) stands for.
std::string_view GroupKeyOfRow(const OutboxRow& group);

// The payload a delivered group row carries: its stored payload with "counts", "standing"
// ({"open","silenced"}: where the group's members stand at send time, when given) and
// "members" (each member row's own payload, in the order given: commit order) added.
std::string GroupPayload(const OutboxRow& group, std::span<const OutboxRow> members,
                         const std::optional<GroupStanding>& standing = std::nullopt);

}  // namespace quell::core
