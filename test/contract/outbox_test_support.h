#pragma once

#include <string>
#include <vector>

#include "quell/core/ports/incident_store.h"
#include "quell/core/text/time.h"

namespace quell::testing {

inline core::WallTime OutboxEpoch() { return *core::ParseRfc3339("2026-12-02T09:00:00Z"); }

// A pending row of (key, generation, version, channel), due at `due`.
inline core::OutboxRow PendingRow(const std::string& key, uint64_t generation, uint64_t version,
                                  const std::string& channel, core::WallTime due) {
  core::OutboxRow row;
  row.idempotency_key = core::OutboxIdempotencyKey(key, generation, version, channel);
  row.key = key;
  row.generation = generation;
  row.version = version;
  row.transition = version == 1 ? core::TransitionKind::kOpen : core::TransitionKind::kRenotify;
  row.channel = channel;
  row.payload = R"({"key":")" + key + "\"}";
  row.next_attempt_at = due;
  row.created_at = due;
  row.updated_at = due;
  return row;
}

// Inserts `rows` in one committed transaction; the error message, or "" on success.
inline std::string InsertRows(core::IncidentStore& store,
                              const std::vector<core::OutboxRow>& rows) {
  auto tx = store.Begin();
  if (!tx) return tx.error().message;
  if (auto status = (*tx)->InsertOutbox(rows); !status) return status.error().message;
  if (auto status = (*tx)->Commit(); !status) return status.error().message;
  return "";
}

}  // namespace quell::testing
