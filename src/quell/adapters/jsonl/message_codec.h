#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/ports/message.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"

// The outbox payload's one codec: payload_encoder.h writes an incident's snapshot (and
// core/delivery writes the group, digest and dead-letter payloads); DecodeMessage reads any of
// them back into a core::Message, once per claimed row; the writers below print a decoded
// message's parts as structured channels send them.
namespace quell::jsonl {

// Reads `row`'s payload. The kind follows the row: a dead-letter or digest key (never an error:
// an unreadable notice has an empty notice_name), a group key or a payload beginning with
// {"group" (a group message), else an incident snapshot. kInvalidArgument when a snapshot is not
// a JSON object with a string "key", or a group payload has no "group" object or a member that
// is no snapshot.
core::Result<core::Message> DecodeMessage(const core::OutboxRow& row);
// One incident snapshot's payload, or one group message's, read as DecodeMessage reads it.
core::Result<core::IncidentSnapshot> DecodeSnapshot(std::string_view payload);
core::Result<core::GroupSnapshot> DecodeGroup(std::string_view payload);

// One member of a JSON object being written: its name and its value, already JSON.
struct JsonMember {
  std::string name;
  std::string value;
};

// `members` as one compact object with its keys in byte order (the order a JSON library with
// sorted objects prints), a later member of a name replacing an earlier one.
std::string SortedObject(std::vector<JsonMember> members);

// A snapshot as a compact object, keys sorted, `extra` merged in (replacing a field of the same
// name): what a snapshot parsed and printed again by nlohmann-json would be.
std::string SnapshotJson(const core::IncidentSnapshot& snapshot,
                         std::vector<JsonMember> extra = {});

// A group's fields without its members, keys sorted, `extra` merged in.
std::string GroupJson(const core::GroupSnapshot& group, std::vector<JsonMember> extra = {});

// The whole payload of a digest or dead-letter notice ({"dead_letter":{...}}), `extra` merged
// in; {} plus `extra` for a notice that could not be read.
std::string NoticeJson(const core::Message& message, std::vector<JsonMember> extra = {});

// `text` as a JSON string, as nlohmann-json prints one (U+2028 and U+2029 kept).
std::string JsonText(std::string_view text);

}  // namespace quell::jsonl
