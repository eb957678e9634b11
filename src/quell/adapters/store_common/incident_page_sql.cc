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

// The pieces of `text` between its '=' signs: each lies inside a label's name or value, so a
// label "name=value" holding `text` has each in the labels' JSON text, as it is stored, when
// the text needs no JSON escape. Checking those first spares parsing the labels of nearly
// every row that cannot match. Empty (no hint) when some byte would be escaped.
std::vector<std::string> LabelTextSegments(const std::string& text) {
  std::vector<std::string> segments;
  for (char c : text) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return {};
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('=', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) segments.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return segments;
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
  if (!query.key.empty()) where += " AND key = " + param(query.key);
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
    std::string labels_hint;
    for (const std::string& segment : LabelTextSegments(query.text)) {
      labels_hint += contains("lower(labels)", param(segment)) + " AND ";
    }
    where += " AND (" + contains("lower(key)", text) + " OR " + contains("lower(condition)", text) +
             " OR (" + labels_hint + "EXISTS (SELECT 1 FROM " + each_label + " AS l WHERE " +
             contains("lower(l.key || '=' || l.value)", text) + ")))";
  }

  const std::string byte_order = pg ? " COLLATE \"C\"" : "";
  // With a text or label filter few rows may match, and SQLite walking incidents_triage
  // would look up every incident by key to test it (4x a plain scan and sort, measured at
  // 100k); the unary + makes it scan and sort. PostgreSQL's planner has statistics to choose.
  const bool selective = !pg && (!query.text.empty() || query.label.has_value());
  const std::string order = query.order == core::IncidentOrder::kTriage
                                ? std::string(" ORDER BY ") + (selective ? "+" : "") +
                                      QUELL_TRIAGE_RANK ", " QUELL_TRIAGE_AT " DESC, key" +
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
  // SQLite would count through outbox_due (every sent row of the store, per listed incident);
  // the unary + keeps it on the (key, ...) unique index. PostgreSQL's planner weighs both. A
  // grouped row went out with its group message: it counts once that message was sent.
  const std::string sent_status = pg ? "o.status" : "+o.status";
  const std::string level = pg ? "(i.recent_evidence::jsonb -> -1 ->> 'level')"
                               : "json_extract(i.recent_evidence, '$[#-1].level')";
  out.page =
      "SELECT " + Qualified(columns, "i") + ", " + level +
      ", (SELECT COUNT(*) FROM outbox o WHERE o.key = i.key AND o.generation ="
      " i.generation AND (" +
      sent_status +
      " = 'sent' OR (o.group_row IS NOT NULL AND EXISTS (SELECT 1 FROM outbox g WHERE"
      " g.idempotency_key = o.group_row AND g.status = 'sent')))) FROM (SELECT "
      "key, " QUELL_TRIAGE_RANK " AS triage_rank, " QUELL_TRIAGE_AT " AS triage_at FROM incidents" +
      where + order + window + ") AS page JOIN incidents i ON i.key = page.key ORDER BY " +
      (query.order == core::IncidentOrder::kTriage ? "page.triage_rank, page.triage_at DESC, "
                                                   : "") +
      "page.key" + byte_order;
  out.count = "SELECT COUNT(*) FROM incidents" + where;
  return out;
}

}  // namespace quell::store
