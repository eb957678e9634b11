#include "quell/adapters/store_common/incident_page_sql.h"

#include <utility>

namespace quell::store {
namespace {

// Each column of the comma-separated `columns` prefixed with `table` and a dot.
std::string Qualified(const std::string& columns, const std::string& table) {
  std::string out;
  size_t start = 0;
  while (start < columns.size()) {
    size_t end = columns.find(',', start);
    if (end == std::string::npos) end = columns.size();
    size_t first = columns.find_first_not_of(' ', start);
    if (!out.empty()) out += ", ";
    out += table + "." + columns.substr(first, end - first);
    start = end + 1;
  }
  return out;
}

}  // namespace

IncidentPageSql BuildIncidentPageSql(const core::IncidentPageQuery& query, SqlDialect dialect,
                                     const std::string& columns) {
  const bool pg = dialect == SqlDialect::kPostgres;
  IncidentPageSql out;
  auto param = [&](std::string value) {
    out.params.push_back(std::move(value));
    return std::string(pg ? "$" : "?") + std::to_string(out.params.size());
  };
  // A substring test that needs no LIKE escaping of the operator's text.
  auto contains = [&](const std::string& haystack, const std::string& needle) {
    return std::string(pg ? "strpos(" : "instr(") + haystack + ", " + needle + ") > 0";
  };
  const std::string each_label =
      pg ? "jsonb_each_text(incidents.labels::jsonb)" : "json_each(incidents.labels)";

  std::string where = " WHERE 1 = 1";
  if (query.status == core::IncidentStatusFilter::kOpen) where += " AND status = 'open'";
  if (query.status == core::IncidentStatusFilter::kResolved) where += " AND status = 'resolved'";
  if (!query.condition.empty()) where += " AND condition = " + param(query.condition);
  if (query.label) {
    const std::string name = param(query.label->first);
    const std::string value = param(query.label->second);
    where += pg ? " AND (labels::jsonb ->> " + name + ") = " + value
                : " AND EXISTS (SELECT 1 FROM " + each_label + " AS l WHERE l.key = " + name +
                      " AND l.value = " + value + ")";
  }
  if (!query.text.empty()) {
    const std::string text = param(query.text);
    where += " AND (" + contains("lower(key)", text) + " OR " + contains("lower(condition)", text) +
             " OR EXISTS (SELECT 1 FROM " + each_label + " AS l WHERE " +
             contains("lower(l.key || '=' || l.value)", text) + "))";
  }

  const std::string byte_order = pg ? " COLLATE \"C\"" : "";
  const std::string order =
      query.order == core::IncidentOrder::kTriage
          ? std::string(" ORDER BY " QUELL_TRIAGE_RANK ", " QUELL_TRIAGE_AT " DESC, key") +
                byte_order
          : " ORDER BY key" + byte_order;
  std::string window;
  if (query.limit) window += " LIMIT " + std::to_string(*query.limit);
  if (query.offset > 0) {
    if (!query.limit) window += pg ? " LIMIT ALL" : " LIMIT -1";
    window += " OFFSET " + std::to_string(query.offset);
  }

  // The window is chosen on the keys alone, so the wide rows (evidence) and the outbox count
  // are read for the page's rows only; the outer query re-sorts those few.
  const std::string level = pg ? "(i.recent_evidence::jsonb -> -1 ->> 'level')"
                               : "json_extract(i.recent_evidence, '$[#-1].level')";
  out.page =
      "SELECT " + Qualified(columns, "i") + ", " + level +
      ", (SELECT COUNT(*) FROM outbox o WHERE o.key = i.key AND o.generation ="
      " i.generation AND o.status = 'sent') FROM (SELECT key, " QUELL_TRIAGE_RANK
      " AS triage_rank, " QUELL_TRIAGE_AT " AS triage_at FROM incidents" +
      where + order + window + ") AS page JOIN incidents i ON i.key = page.key ORDER BY " +
      (query.order == core::IncidentOrder::kTriage ? "page.triage_rank, page.triage_at DESC, "
                                                   : "") +
      "page.key" + byte_order;
  out.count = "SELECT COUNT(*) FROM incidents" + where;
  return out;
}

}  // namespace quell::store
