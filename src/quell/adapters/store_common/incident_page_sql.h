#pragma once

#include <string>
#include <vector>

#include "quell/core/ports/incident_page.h"

namespace quell::store {

enum class SqlDialect : uint8_t { kSqlite, kPostgres };

// The two statements of one incident list page (OperatorStore::ListIncidentPage), written for
// `dialect`, and their text parameters in placeholder order (?1.. or $1..). `page` selects
// `columns` (a store's incident column list, which it decodes from column 0), then the newest
// evidence item's level (NULL when none) and the count of outbox rows of the current
// generation that went out (sent, or grouped into a group message that was sent); `count`
// selects the number of matching rows.
struct IncidentPageSql {
  std::string page;
  std::string count;
  std::vector<std::string> params;
};
IncidentPageSql BuildIncidentPageSql(const core::IncidentPageQuery& query, SqlDialect dialect,
                                     const std::string& columns);

// The triage order's two leading terms, exactly as migration 14's index writes them, so the
// planners read the index in order instead of sorting every row.
#define QUELL_TRIAGE_RANK "(CASE status WHEN 'open' THEN 0 WHEN 'resolved' THEN 1 ELSE 2 END)"
#define QUELL_TRIAGE_AT \
  "(COALESCE(CASE WHEN status = 'open' THEN opened_at ELSE resolved_at END, 0))"

}  // namespace quell::store
