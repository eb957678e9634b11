#include "quell/adapters/jsonl/message_lines.h"

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "quell/core/text/json_escape.h"

namespace quell::jsonl {
namespace {

void AppendMember(std::string& out, std::string_view key, std::string_view transition) {
  out += "{\"key\":";
  core::AppendJsonString(out, key);
  out += ",\"transition\":";
  core::AppendJsonString(out, transition);
  out += '}';
}

// A group row's members, key and counts, read from its payload (contract: {"group":{"key",
// "counts","members":[{"key","transition",...}]}}); false when the payload is not that shape.
bool AppendGroup(std::string& out, const std::string& payload) {
  simdjson::dom::parser parser;
  simdjson::dom::element group;
  if (parser.parse(payload)["group"].get(group)) return false;
  simdjson::dom::array members;
  std::string_view key;
  if (group["members"].get_array().get(members) || group["key"].get_string().get(key)) {
    return false;
  }
  out += ",\"members\":[";
  bool first = true;
  for (const simdjson::dom::element member : members) {
    std::string_view member_key;
    std::string_view transition;
    if (member["key"].get_string().get(member_key) ||
        member["transition"].get_string().get(transition)) {
      return false;
    }
    if (!first) out += ',';
    first = false;
    AppendMember(out, member_key, transition);
  }
  out += "],\"group_key\":";
  core::AppendJsonString(out, key);
  simdjson::dom::element counts;
  if (!group["counts"].get(counts)) {
    out += ",\"counts\":";
    out += simdjson::minify(counts);
  }
  // How many of the group's keys the message says are still open: what a reader checks
  // against the store. The standing, counted from the store when the message was sent, is
  // what the message says when it has one (silenced members are still open).
  uint64_t open_after = 0;
  bool said = !group["open_after"].get_uint64().get(open_after);
  simdjson::dom::element standing;
  if (!group["standing"].get(standing)) {
    uint64_t open = 0;
    uint64_t silenced = 0;
    if (!standing["open"].get_uint64().get(open) &&
        !standing["silenced"].get_uint64().get(silenced)) {
      open_after = open + silenced;
      said = true;
    }
    out += ",\"standing\":";
    out += simdjson::minify(standing);
  }
  if (said) {
    out += ",\"open_after\":";
    out += std::to_string(open_after);
  }
  return true;
}

}  // namespace

void AppendMessageLine(std::string& out, core::WallTime at, const core::Delivery& delivery) {
  const core::OutboxRow& row = delivery.row;
  out += "{\"at\":\"";
  core::AppendRfc3339(out, at);
  out += "\",\"channel\":";
  core::AppendJsonString(out, row.channel);
  out += ",\"idempotency_key\":";
  core::AppendJsonString(out, row.idempotency_key);
  const size_t mark = out.size();
  if (!core::IsGroupRow(row) || !AppendGroup(out, row.payload)) {
    out.resize(mark);
    out += ",\"members\":[";
    AppendMember(out, row.key, core::TransitionName(row.transition));
    out += "],\"key\":";
    core::AppendJsonString(out, row.key);
    out += ",\"transition\":";
    core::AppendJsonString(out, core::TransitionName(row.transition));
  }
  out += ",\"subject\":";
  core::AppendJsonString(out, delivery.message.subject);
  out += ",\"severity\":";
  core::AppendJsonString(out, delivery.message.severity);
  out += "}\n";
}

void MessageLineWriter::OnMessage(core::WallTime at, const core::Delivery& delivery) {
  line_.clear();
  AppendMessageLine(line_, at, delivery);
  if (ok_ && std::fwrite(line_.data(), 1, line_.size(), out_) != line_.size()) ok_ = false;
}

}  // namespace quell::jsonl
