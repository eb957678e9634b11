#include "quell/core/delivery/tenant_budget.h"

#include <utility>

#include "quell/core/text/json_escape.h"

namespace quell::core {

std::string_view TenantOf(std::string_view key) {
  const size_t colon = key.find(':');
  return colon == std::string_view::npos ? key : key.substr(0, colon);
}

BudgetWindow HourWindow(WallTime at) {
  const WallTime start = std::chrono::floor<std::chrono::hours>(at);
  return {start, start + std::chrono::hours(1)};
}

bool IsDigestKey(std::string_view key) { return key.starts_with(kDigestKeyPrefix); }

OutboxRow MakeWindowRow(std::string key, uint64_t generation, uint64_t version,
                        std::string_view channel, OutboxRowKind kind, std::string_view subject_name,
                        std::string_view subject, BudgetWindow window, WallTime now) {
  OutboxRow row;
  row.key = std::move(key);
  row.generation = generation;
  row.version = version;
  // The column needs a transition; no channel shows it for these (see MessageKindOf).
  row.transition = TransitionKind::kOpen;
  row.channel = std::string(channel);
  row.idempotency_key = OutboxIdempotencyKey(row.key, row.generation, row.version, row.channel);
  row.kind = kind;
  row.payload = "{";
  AppendJsonString(row.payload, OutboxRowKindName(kind));
  row.payload += ":{";
  AppendJsonString(row.payload, subject_name);
  row.payload += ':';
  AppendJsonString(row.payload, subject);
  row.payload += ",\"window_start\":\"";
  AppendRfc3339(row.payload, window.start);
  row.payload += "\",\"window_end\":\"";
  AppendRfc3339(row.payload, window.end);
  row.payload += "\"}}";
  row.status = OutboxStatus::kPending;
  row.next_attempt_at = window.end;
  row.created_at = now;
  row.updated_at = now;
  return row;
}

OutboxRow MakeDigestRow(std::string_view tenant, std::string_view channel, BudgetWindow window,
                        WallTime now) {
  const auto hour = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::hours>(window.start.time_since_epoch()).count());
  return MakeWindowRow(std::string(kDigestKeyPrefix) + std::string(tenant), hour, 1, channel,
                       OutboxRowKind::kDigest, "tenant", tenant, window, now);
}

std::string_view DigestTenant(const OutboxRow& digest) {
  std::string_view key = digest.key;
  if (key.starts_with(kDigestKeyPrefix)) key.remove_prefix(kDigestKeyPrefix.size());
  return key;
}

BudgetWindow DigestWindow(const OutboxRow& digest) {
  const WallTime start{std::chrono::hours(static_cast<int64_t>(digest.generation))};
  return {start, start + std::chrono::hours(1)};
}

RenderedMessage DigestMessage(const OutboxRow& digest, std::span<const OutboxRow> folded,
                              size_t max_listed) {
  const BudgetWindow window = DigestWindow(digest);
  RenderedMessage message;
  message.severity = "warning";
  message.subject = "quell digest: ";
  message.subject += std::to_string(folded.size());
  message.subject += " more notifications for tenant ";
  message.subject += DigestTenant(digest);
  message.body = message.subject;
  message.body += " between ";
  AppendRfc3339(message.body, window.start);
  message.body += " and ";
  AppendRfc3339(message.body, window.end);
  message.body += ", over its hourly budget:";
  for (size_t i = 0; i < folded.size() && i < max_listed; ++i) {
    message.body += "\n- ";
    message.body += TransitionName(folded[i].transition);
    message.body += " ";
    message.body += folded[i].key;
  }
  if (folded.size() > max_listed) {
    message.body += "\n... and ";
    message.body += std::to_string(folded.size() - max_listed);
    message.body += " more (quell outbox list --status folded)";
  }
  return message;
}

std::string DigestPayload(const OutboxRow& digest, std::span<const OutboxRow> folded) {
  const BudgetWindow window = DigestWindow(digest);
  std::string out = "{\"digest\":{\"tenant\":";
  AppendJsonString(out, DigestTenant(digest));
  out += ",\"window_start\":\"";
  AppendRfc3339(out, window.start);
  out += "\",\"window_end\":\"";
  AppendRfc3339(out, window.end);
  out += "\",\"count\":";
  out += std::to_string(folded.size());
  out += ",\"folded\":[";
  for (size_t i = 0; i < folded.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"key\":";
    AppendJsonString(out, folded[i].key);
    out += ",\"transition\":\"";
    out += TransitionName(folded[i].transition);
    out += "\",\"generation\":";
    out += std::to_string(folded[i].generation);
    out += ",\"version\":";
    out += std::to_string(folded[i].version);
    out += ",\"created_at\":\"";
    AppendRfc3339(out, folded[i].created_at);
    out += "\"}";
  }
  out += "]}}";
  return out;
}

}  // namespace quell::core
