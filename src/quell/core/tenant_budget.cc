#include "quell/core/tenant_budget.h"

#include "quell/core/json_escape.h"

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

OutboxRow MakeDigestRow(std::string_view tenant, std::string_view channel, BudgetWindow window,
                        WallTime now) {
  OutboxRow row;
  row.key = std::string(kDigestKeyPrefix);
  row.key.append(tenant);
  row.generation = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::hours>(window.start.time_since_epoch()).count());
  row.version = 1;
  row.transition = TransitionKind::kOpen;
  row.channel = std::string(channel);
  row.idempotency_key = OutboxIdempotencyKey(row.key, row.generation, row.version, row.channel);
  row.payload = "{\"digest\":{\"tenant\":";
  AppendJsonString(row.payload, tenant);
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

}  // namespace quell::core
