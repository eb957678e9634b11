#include "quell/core/delivery/dead_letter.h"

#include <algorithm>

#include "quell/core/text/json_escape.h"

namespace quell::core {
namespace {

int64_t Seconds(WallTime t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

void AppendRowLine(std::string& out, const OutboxRow& row) {
  out += "\n- ";
  out += row.key;
  out += " on ";
  out += row.channel;
  out += ": ";
  out += TransitionName(row.transition);
  out += ", ";
  out += std::to_string(row.attempts);
  out += row.attempts == 1 ? " attempt" : " attempts";
  if (!row.last_error.empty()) {
    out += ", last error: ";
    out += row.last_error;
  }
  out += " (";
  out += row.idempotency_key;
  out += ')';
}

}  // namespace

bool IsDeadLetterKey(std::string_view key) { return key == kDeadLetterKey; }

BudgetWindow DeadLetterWindowAt(WallTime at, Duration interval) {
  const int64_t length =
      std::max<int64_t>(std::chrono::duration_cast<std::chrono::seconds>(interval).count(), 1);
  int64_t seconds = Seconds(at);
  seconds -= ((seconds % length) + length) % length;  // floor, also before the epoch
  const WallTime start{std::chrono::seconds(seconds)};
  return {start, start + std::chrono::seconds(length)};
}

OutboxRow MakeDeadLetterRow(std::string_view channel, BudgetWindow window, WallTime now) {
  const auto length = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(window.end - window.start).count());
  return MakeWindowRow(std::string(kDeadLetterKey), static_cast<uint64_t>(Seconds(window.start)),
                       length, channel, OutboxRowKind::kDeadLetter, "channel", channel, window,
                       now);
}

BudgetWindow DeadLetterWindowOf(const OutboxRow& notice) {
  const WallTime start{std::chrono::seconds(static_cast<int64_t>(notice.generation))};
  return {start, start + std::chrono::seconds(static_cast<int64_t>(notice.version))};
}

RenderedMessage DeadLetterMessage(const OutboxRow& notice, std::span<const OutboxRow> dead,
                                  size_t max_listed) {
  const BudgetWindow window = DeadLetterWindowOf(notice);
  RenderedMessage message;
  message.severity = "critical";
  message.subject = "quell could not deliver ";
  message.subject += std::to_string(dead.size());
  message.subject += dead.size() == 1 ? " message" : " messages";
  message.body = message.subject;
  message.body += " between ";
  AppendRfc3339(message.body, window.start);
  message.body += " and ";
  AppendRfc3339(message.body, window.end);
  message.body += "; these outbox rows are dead:";
  for (size_t i = 0; i < dead.size() && i < max_listed; ++i) AppendRowLine(message.body, dead[i]);
  if (dead.size() > max_listed) {
    message.body += "\n... and ";
    message.body += std::to_string(dead.size() - max_listed);
    message.body += " more";
  }
  message.body +=
      "\nSee `quell outbox dead list`; send them again with `quell outbox dead retry --all`.";
  return message;
}

std::string DeadLetterPayload(const OutboxRow& notice, std::span<const OutboxRow> dead,
                              size_t max_listed) {
  const BudgetWindow window = DeadLetterWindowOf(notice);
  std::string out = "{\"dead_letter\":{\"channel\":";
  AppendJsonString(out, notice.channel);
  out += ",\"window_start\":\"";
  AppendRfc3339(out, window.start);
  out += "\",\"window_end\":\"";
  AppendRfc3339(out, window.end);
  out += "\",\"count\":";
  out += std::to_string(dead.size());
  out += ",\"rows\":[";
  const size_t listed = std::min(dead.size(), max_listed);
  for (size_t i = 0; i < listed; ++i) {
    const OutboxRow& row = dead[i];
    if (i > 0) out += ',';
    out += "{\"idempotency_key\":";
    AppendJsonString(out, row.idempotency_key);
    out += ",\"key\":";
    AppendJsonString(out, row.key);
    out += ",\"channel\":";
    AppendJsonString(out, row.channel);
    out += ",\"transition\":\"";
    out += TransitionName(row.transition);
    out += "\",\"generation\":";
    out += std::to_string(row.generation);
    out += ",\"version\":";
    out += std::to_string(row.version);
    out += ",\"attempts\":";
    out += std::to_string(row.attempts);
    out += ",\"last_error\":";
    AppendJsonString(out, row.last_error);
    out += ",\"died_at\":\"";
    AppendRfc3339(out, row.updated_at);
    out += "\"}";
  }
  out += "],\"more\":";
  out += std::to_string(dead.size() - listed);
  out += "}}";
  return out;
}

MessageKind MessageKindOf(const OutboxRow& row) {
  switch (row.kind) {
    case OutboxRowKind::kDeadLetter:
      return MessageKind::kDeadLetter;
    case OutboxRowKind::kDigest:
      return MessageKind::kDigest;
    case OutboxRowKind::kIncident:
    case OutboxRowKind::kGroup:
      break;
  }
  return MessageKind::kIncident;
}

const char* MessageKindName(MessageKind kind) {
  switch (kind) {
    case MessageKind::kIncident:
      return "incident";
    case MessageKind::kDigest:
      return "digest";
    case MessageKind::kDeadLetter:
      return "dead_letter";
  }
  return "incident";
}

}  // namespace quell::core
