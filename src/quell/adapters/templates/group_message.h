#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/adapters/templates/incident_view.h"
#include "quell/core/ports/channel.h"
#include "quell/core/result.h"

// Group messages: one row standing for the transitions of several incidents on one channel,
// with the payload {"group":{"key","channel","sequence","labels","counts","open_after",
// "standing","members":[snapshot, ...]}}. Each channel type lists at most its limit of members and
// says how many more; the counts are always the whole group's.
namespace quell::templates {

struct GroupView {
  std::string key;  // "condition=model-answer,tenant=t1"
  std::string channel;
  uint64_t sequence = 0;
  std::vector<std::pair<std::string, std::string>> labels;
  uint64_t members = 0;  // counts.members, else the members listed in the payload
  uint64_t opened = 0;
  uint64_t renotified = 0;
  uint64_t resolved = 0;
  uint64_t open_after = 0;  // keys still open once this message is read; 0: all resolved
  // Where the members stand at send time ("standing", OutboxStore::GroupStandingAt), which the
  // text says rather than open_after when the payload has it: open, and open but silenced.
  bool has_standing = false;
  uint64_t standing_open = 0;
  uint64_t standing_silenced = 0;
  std::string severity;              // the gravest member's ("fatal" > "critical" > ...)
  std::vector<IncidentView> listed;  // the first `limit` members, in commit order
  uint64_t more = 0;                 // members not listed
  uint64_t episode = 0;              // the payload's; 0: an episode begun before they were kept
  // One signed link acking every member of this episode still open when it is pressed
  // (ViewOptions::group_ack_link), instead of a link per member; empty without ack links, an
  // episode, or a member left open.
  std::string ack_link;
};

// The members still open as the message says it: at send time (standing, silenced ones
// included) when known, else once the message was built (open_after).
uint64_t StillOpen(const GroupView& group);

// True when `payload` is a group message's ({"group":...}); a cheap look at its start.
bool IsGroupPayload(std::string_view payload);

// kInvalidArgument when the payload is not a group message or a listed member is no snapshot.
// `sent_at`: as ParseIncidentView's, for each member.
core::Result<GroupView> ParseGroupView(std::string_view payload, const ViewOptions& options,
                                       size_t limit,
                                       std::optional<core::WallTime> sent_at = std::nullopt);
// The view of a group read once (jsonl::DecodeMessage), listing its first `limit` members.
GroupView GroupViewOf(const core::GroupSnapshot& group, const ViewOptions& options, size_t limit,
                      std::optional<core::WallTime> sent_at = std::nullopt);

// Members listed before "… and N more" when a channel sets no group_limit: short for a page or
// a text message, longer where a reader scrolls.
size_t DefaultGroupLimit(std::string_view channel_type);

// The group's message for `channel_type` ("webhook", "slack", "email", "sms", "pagerduty",
// "opsgenie"): subject, body and severity as the type's single-transition message has them. Slack's
// body is mrkdwn with Slack's escaping, one line per member, for the channel to cut into blocks.
core::RenderedMessage RenderGroup(std::string_view channel_type, const GroupView& group,
                                  const ViewOptions& options);

}  // namespace quell::templates
