// Every statement the store runs on the poll, push, dispatch and operator paths, EXPLAINed on
// SQLite and PostgreSQL: none may read a table that grows with history (the outbox, the
// decision log, the marks and attempts, the polls) from end to end, nor every row a key ever
// had (a search on the key alone), because then quell slows down as its history grows, and
// fastest when a receiver is down and the pending outbox piles up (issue 33). The statements
// are the ones the store itself records while a workload drives each port method once, plus on
// SQLite every statement prepared on the connection, used or not. A statement that reads a
// growing table whole on purpose (an operator's listing, a bounded LIMIT) is on kAllowed below,
// each with why.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../app/fake_clock.h"
#include "outbox_test_support.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/app/dispatcher.h"
#include "quell/app/operator_commands.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/delivery/group_plan.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using std::chrono::minutes;

// Tables whose rows grow with time or with what was ever observed. The others (silences,
// leases, instances, source marks, windows, group sequences) stay small.
const std::set<std::string> kGrowing = {"incidents",  "decisions",         "polls",
                                        "outbox",     "observation_marks", "delivery_attempts",
                                        "key_groups", "budget_windows",    "callback_events"};
// Of those, the ones that keep a key's whole history: a search on the key alone reads it all.
const std::set<std::string> kHistory = {"decisions", "outbox", "observation_marks",
                                        "delivery_attempts"};

// Partial indexes that hold only what is live (a tier not yet paged, a member not yet taken by
// a group message, an open incident, the rows dispatchers hold leased now, a batch each):
// reading one whole costs what is live now, not what happened before.
const std::set<std::string> kWaitingIndexes = {"outbox_tier_waiting", "outbox_waiting",
                                               "incidents_open", "outbox_leases"};
// Partial indexes of the rows still to deliver: a search of one key's rows in them reads what
// the key has live now, not its history (the claim's ordering guard). Read whole, they are the
// backlog that piles up while a receiver is down, so a scan still fails.
const std::set<std::string> kLiveIndexes = {"outbox_live"};

// Statements allowed to read a growing table whole, by a substring of their text (both stores'
// spellings when they differ). Each says why its cost is not the hot path's.
const std::vector<std::pair<std::string, std::string>> kAllowed = {
    // Operator and test listings: everything, on request, never on a poll or a send.
    {"FROM incidents ORDER BY key", "ListIncidents: the operator's full listing"},
    {"tier FROM outbox ORDER BY key", "ListOutbox: operator listing"},
    {"FROM outbox WHERE status = ", "ListOutbox(status): operator listing"},
    {"count(*) FROM decisions", "CountDecisions: operator count"},
    {"count(*) FROM polls", "CountPolls: operator count"},
    {"FROM decisions WHERE at >= ", "the shadow report's window, read once per report"},
    {"FROM polls WHERE applied_at >= ", "the shadow report's update_only, read once per report"},
    {"FROM key_groups WHERE last_seen_at >= ", "the shadow report's window, read once"},
    {"GROUP BY status", "CountOutboxByStatus: the metrics scrape, once per scrape"},
    {"FROM incidents INDEXED BY incidents_open WHERE status",
     "CountOpenIncidents: the metrics scrape reads the open incidents, not the history"},
    {"count(*) FROM incidents WHERE status = 'open'", "CountOpenIncidents (PostgreSQL)"},
    // The incident page: its filters read incidents (as many as keys, not history); the
    // triage order stops after its page.
    {"incidents_triage", "the operator page's list, one page"},
    {"COUNT(*) FROM incidents WHERE 1 = 1", "the operator page's count"},
    {"SELECT i.key, i.condition, i.generation", "the operator page's list and its filters"},
    {"status = 'dead'", "the dead-letter commands: an operator's, over dead rows"},
    // One key's history, on request (the page's timeline, `quell history`), bounded by the
    // decision and outbox retention; never on a poll or a send.
    {"FROM decisions WHERE key = ", "one key's recent decisions, newest first, LIMIT"},
    {"min(CASE WHEN decision = 'notify'", "one key's timeline: its generations"},
    {"FROM observation_marks WHERE key = ", "one key's timeline: its marks, LIMIT"},
    {"FROM delivery_attempts a", "one key's timeline: its attempts, LIMIT"},
    {"SELECT group_row FROM outbox WHERE key = ", "one key's group messages, LIMIT"},
    {"ORDER BY generation DESC, version DESC, channel", "one key's recent outbox rows, LIMIT"},
    // A tenant's folded rows for its digest: outbox_folded holds only folded rows, by channel
    // and key, and retention trims them.
    {"INDEXED BY outbox_folded", "a tenant's folded rows for its digest"},
};

struct Finding {
  std::string statement;
  std::string plan;
  std::string why;
};

std::string Allowed(const std::string& sql) {
  for (const auto& [fragment, why] : kAllowed) {
    if (sql.find(fragment) != std::string::npos) return why;
  }
  return "";
}

bool IsControl(const std::string& sql) {
  static const std::regex control(
      R"(^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|CREATE|ALTER|SET|SELECT pg_|SELECT set_config|LOCK)\b.*)",
      std::regex::icase);
  return std::regex_match(sql, control) || sql.find("schema_migrations") != std::string::npos ||
         sql.find("sqlite_master") != std::string::npos;
}

// The column names a constraint list names: "(key=? AND channel=?)" on SQLite,
// "((key = 'a'::text) AND (channel = $2))" on PostgreSQL. A generation bounded from above is
// "generation<": it reads every generation before one, which is the key's history.
std::set<std::string> ConstrainedColumns(const std::string& constraint) {
  static const std::regex column(R"(\(?\b([a-z_]+)\)?\s*(=|>|<|>=|<=|IS|ANY)\W)");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(constraint.begin(), constraint.end(), column);
       it != std::sregex_iterator(); ++it) {
    const bool below = (*it)[2] == "<" || (*it)[2] == "<=";
    out.insert((*it)[1] == "generation" && below ? "generation<" : std::string((*it)[1]));
  }
  return out;
}

// Whether an index search on `columns` alone reads a growing share of the table: a key's
// whole history (key, channel, every generation before one), or, on SQLite, every row in one status
// (the pending backlog). SQLite keeps no statistics, so its plan is the same whatever the rows;
// PostgreSQL's depends on them, and a status it sees as rare is a fair search there.
bool KeyOnly(const std::set<std::string>& columns, bool status_is_broad) {
  static const std::set<std::string> broad = {"key", "channel", "transition", "tier",
                                              "generation<"};
  if (columns.empty()) return false;
  for (const std::string& c : columns) {
    if (broad.count(c) == 0 && !(status_is_broad && c == "status")) return false;
  }
  return true;
}

// The growing tables `sql` names under an alias ("FROM outbox o"), by alias: SQLite's plan
// names a table by its alias.
std::map<std::string, std::string> Aliases(const std::string& sql) {
  static const std::regex alias(R"(\b([a-z_]+) (?:AS )?([a-z])\b)");
  std::map<std::string, std::string> out;
  for (auto it = std::sregex_iterator(sql.begin(), sql.end(), alias); it != std::sregex_iterator();
       ++it) {
    if (kGrowing.count((*it)[1]) != 0) out[(*it)[2]] = (*it)[1];
  }
  return out;
}

// Why one plan line (SQLite's EXPLAIN QUERY PLAN detail) reads a growing table's history; "".
std::string SqliteVerdict(const std::string& detail,
                          const std::map<std::string, std::string>& aliases) {
  static const std::regex scan(R"(^(SCAN|SEARCH) (\w+)(?: AS \w+)?(.*)$)");
  std::smatch m;
  if (!std::regex_match(detail, m, scan)) return "";
  std::string table = m[2];
  if (auto it = aliases.find(table); it != aliases.end()) table = it->second;
  if (kGrowing.count(table) == 0) return "";
  static const std::regex index(R"(INDEX (\w+))");
  std::smatch i;
  const std::string rest = m[3];
  const bool indexed = std::regex_search(rest, i, index);
  if (indexed && kWaitingIndexes.count(i[1]) != 0) return "";
  if (m[1] == "SCAN") return "reads " + table + " whole";
  if (indexed && kLiveIndexes.count(i[1]) != 0) return "";
  static const std::regex constraint(R"(\((.*)\)\s*$)");
  std::smatch c;
  if (kHistory.count(table) != 0 && std::regex_search(rest, c, constraint) &&
      KeyOnly(ConstrainedColumns(c[1]), true)) {
    return "reads every " + table + " row of the key or status";
  }
  return "";
}

class QueryPlanContractTest : public StoreTest {
 protected:
  void SetUpStore() override {
    if (auto* s = dynamic_cast<sqlite::SqliteIncidentStore*>(&store_->incidents())) {
      s->RecordStatements(&sqlite_texts_);
    }
    if (auto* p = dynamic_cast<postgres::PgIncidentStore*>(&store_->incidents())) {
      p->RecordStatements(&pg_log_);
    }
  }
  void TearDown() override {
    if (!store_) return;
    if (auto* s = dynamic_cast<sqlite::SqliteIncidentStore*>(&store_->incidents())) {
      s->RecordStatements(nullptr);
    }
    if (auto* p = dynamic_cast<postgres::PgIncidentStore*>(&store_->incidents())) {
      p->RecordStatements(nullptr);
    }
  }

  void Poll(const std::string& key, core::Health health) {
    app::ApplyOptions options;
    options.policy.healthy_polls_to_close = 1;
    options.policy.cooldown = minutes(5);
    options.escalation = {core::EscalationTier{minutes(0), {"chat"}},
                          core::EscalationTier{minutes(5), {"pager"}}};
    app::PollApplier applier(store_->incidents(), encoder_, options);
    core::Observation o;
    o.key = key;
    o.condition = "db";
    o.at = clock_.Now();
    o.health = health;
    o.evidence = R"({"level":"error"})";
    const std::vector<core::Observation> poll = {o};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    auto applied =
        applier.Apply(stream, "poll-" + core::FormatRfc3339(clock_.Now()), clock_.Now(), sink);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
  }

  // Drives every port method once, so each records the statements it runs.
  void Workload() {
    const core::WallTime t0 = clock_.Now();
    // The poll path, with escalation tiers: opens, a renotify, a resolve that cancels a tier.
    for (const std::string key : {"acme:db", "acme:web"}) Poll(key, core::Health::kUnhealthy);
    clock_.StepWall(minutes(6));
    Poll("acme:db", core::Health::kUnhealthy);
    Poll("acme:web", core::Health::kHealthy);
    // The transaction's other methods, directly.
    {
      auto tx = store_->incidents().Begin();
      ASSERT_TRUE(tx.ok()) << tx.error().message;
      const std::pair<std::string, uint64_t> gens[] = {{"acme:db", 1}, {"acme:web", 1}};
      EXPECT_TRUE((*tx)->NeverLiveChannels(gens).ok());
      EXPECT_TRUE((*tx)->HeardChannels(gens).ok());
      EXPECT_TRUE((*tx)->InhibitedChannels(gens).ok());
      const std::string conditions[] = {"db"};
      EXPECT_TRUE((*tx)->LoadOpenIncidentsOf(conditions).ok());
      const std::vector<std::string> predicted = {"acme:a", "acme:db"};
      std::vector<std::pair<std::string, uint64_t>> versions;
      EXPECT_TRUE((*tx)->LoadVersions(predicted, versions).ok());
      EXPECT_TRUE((*tx)->CancelTierOpens(gens, clock_.Now()).ok());
      EXPECT_TRUE((*tx)->PruneDecisions(t0 - minutes(60)).ok());
      EXPECT_TRUE((*tx)->PruneKeyGroups(t0 - minutes(60)).ok());
      EXPECT_TRUE((*tx)->PutSourceMark("sentry", "cursor", clock_.Now()).ok());
      const core::KeyGroup seen[] = {{"acme:db", "g1"}};
      EXPECT_TRUE((*tx)->RecordKeyGroups(seen, clock_.Now()).ok());
      EXPECT_TRUE((*tx)->AdmitToBudget("acme", "chat", t0, 100).ok());
      EXPECT_TRUE((*tx)->LoadActiveSilences(clock_.Now()).ok());
      EXPECT_TRUE((*tx)->RememberCallbackEvent("slack", "e1", clock_.Now(), clock_.Now()).ok());
      (void)(*tx)->FencePoll("poll:db", 1, clock_.Now());  // no lease: kConflict, after its reads
      (void)(*tx)->Commit();
    }
    // A grouped row waiting in its group, for the grouping statements.
    core::OutboxRow grouped = PendingRow("acme:db", 1, 9, "chat", clock_.Now());
    grouped.status = core::OutboxStatus::kGrouped;
    grouped.group_key = "acme";
    ASSERT_EQ(InsertRows(store_->incidents(), {grouped}), "");

    // The dispatch path.
    core::OutboxStore& outbox = store_->outbox();
    auto claimed = outbox.ClaimDue("d1", clock_.Now(), minutes(1), 10);
    ASSERT_TRUE(claimed.ok()) << claimed.error().message;
    EXPECT_TRUE(outbox.CancelUnwantedTierRows("d1", *claimed, clock_.Now()).ok());
    std::vector<core::OutboxOutcome> outcomes;
    for (size_t i = 0; i < claimed->size(); ++i) {
      core::OutboxOutcome outcome;
      outcome.idempotency_key = (*claimed)[i].idempotency_key;
      outcome.kind = i % 3 == 0   ? core::OutboxOutcome::Kind::kSent
                     : i % 3 == 1 ? core::OutboxOutcome::Kind::kReschedule
                                  : core::OutboxOutcome::Kind::kDead;
      outcome.remote_message_id = "m";
      outcome.error = "e";
      outcome.next_attempt_at = clock_.Now() + minutes(1);
      outcomes.push_back(outcome);
    }
    EXPECT_TRUE(outbox.RecordOutcomes("d1", outcomes, clock_.Now()).ok());
    EXPECT_TRUE(outbox.SentTimes("chat", t0).ok());
    EXPECT_TRUE(outbox.FoldedRows("chat", "acme", t0, clock_.Now()).ok());
    EXPECT_TRUE(outbox.DeadRows(t0, clock_.Now()).ok());
    EXPECT_TRUE(outbox.WaitingGroups().ok());
    auto group = outbox.AssembleGroup("chat", "acme", clock_.Now(),
                                      core::GroupPlannerFor(minutes(0), minutes(5)));
    EXPECT_TRUE(group.ok()) << group.error().message;
    const std::string group_row = group.ok() && *group ? (*group)->idempotency_key : "none";
    EXPECT_TRUE(outbox.GroupMembers(group_row).ok());
    EXPECT_TRUE(outbox.GroupStandingAt("chat", "acme", clock_.Now()).ok());
    EXPECT_TRUE(outbox.ThreadRemoteId("acme:db", 1, "chat").ok());
    EXPECT_TRUE(outbox.TrimOutbox(t0 - minutes(60), 100).ok());

    // The operator path.
    core::IncidentStore& incidents = store_->incidents();
    EXPECT_TRUE(incidents.ListIncidents().ok());
    EXPECT_TRUE(incidents.FindIncident("acme:db").ok());
    EXPECT_TRUE(incidents.ListOpenIncidents("db").ok());
    EXPECT_TRUE(incidents.ListWatchedKeysAfter("db", "acme:a", 100).ok());
    std::vector<core::Incident> found;
    const std::vector<std::string> many = {"acme:a", "acme:db"};
    EXPECT_TRUE(incidents.FindIncidents(many, found).ok());
    EXPECT_TRUE(incidents.ListOutbox(std::nullopt).ok());
    EXPECT_TRUE(incidents.ListOutbox(core::OutboxStatus::kDead).ok());
    EXPECT_TRUE(incidents.GetSourceMark("sentry").ok());
    EXPECT_TRUE(incidents.CountDecisions().ok());
    EXPECT_TRUE(incidents.CountPolls().ok());
    core::OperatorStore& ops = store_->operators();
    EXPECT_TRUE(incidents.CountOpenIncidents().ok());
    EXPECT_TRUE(incidents.CountOutboxByStatus().ok());
    core::Silence silence;
    silence.pattern = "acme:*";
    silence.expires_at = clock_.Now() + minutes(60);
    silence.created_at = clock_.Now();
    auto silence_id = ops.AddSilence(silence);
    EXPECT_TRUE(silence_id.ok());
    EXPECT_TRUE(ops.ListSilences(clock_.Now()).ok());
    EXPECT_TRUE(ops.ListSilences(std::nullopt).ok());
    if (silence_id.ok()) {
      EXPECT_TRUE(ops.RemoveSilence(*silence_id).ok());
    }
    auto dead = incidents.ListOutbox(core::OutboxStatus::kDead);
    if (dead.ok() && !dead->empty()) {
      (void)ops.RetryDead(dead->front().idempotency_key, clock_.Now());
      (void)ops.DropDead(dead->front().idempotency_key, clock_.Now());
    }
    (void)ops.RetryDead("missing", clock_.Now());
    EXPECT_TRUE(ops.RetryAllDead(std::nullopt, clock_.Now()).ok());
    EXPECT_TRUE(ops.RetryAllDead(std::string_view("chat"), clock_.Now()).ok());
    EXPECT_TRUE(ops.GenerationChannels("acme:db", 1).ok());
    EXPECT_TRUE(ops.OpenMembersOfMessage(group_row).ok());
    EXPECT_TRUE(ops.OpenMembersOfGroup("chat", "acme", std::nullopt, clock_.Now()).ok());
    EXPECT_TRUE(ops.OpenMembersOfGroup("chat", "acme", 1, clock_.Now()).ok());
    EXPECT_TRUE(ops.GroupMemberKeys("chat", "acme", 10).ok());
    EXPECT_TRUE(ops.RecentDecisions("acme:db", 10).ok());
    EXPECT_TRUE(ops.GroupMessagesOf("acme:db", 10).ok());
    EXPECT_TRUE(ops.RecentOutbox("acme:db", 10).ok());
    EXPECT_TRUE(ops.ReadTimeline("acme:db", 10).ok());
    core::IncidentPageQuery page;
    page.limit = 10;
    EXPECT_TRUE(ops.ListIncidentPage(page).ok());
    page.order = core::IncidentOrder::kTriage;
    page.status = core::IncidentStatusFilter::kOpen;
    EXPECT_TRUE(ops.ListIncidentPage(page).ok());
    page.key = "acme:db";
    EXPECT_TRUE(ops.ListIncidentPage(page).ok());
    core::OneOffWindow window;
    window.name = "w";
    window.starts_at = clock_.Now();
    window.ends_at = clock_.Now() + minutes(60);
    window.created_at = clock_.Now();
    auto window_id = ops.AddOneOffWindow(window);
    EXPECT_TRUE(window_id.ok());
    EXPECT_TRUE(ops.ListOneOffWindows(clock_.Now()).ok());
    if (window_id.ok()) {
      EXPECT_TRUE(ops.ExpireOneOffWindow(*window_id, clock_.Now()).ok());
    }
    app::OperatorCommands commands(incidents, ops, encoder_, [](std::string_view) {
      return std::optional<app::Route>(app::Route{{"chat", "pager"}, false});
    });
    EXPECT_TRUE(commands.Ack("acme:db", "alice", clock_.Now()).ok());
    core::ShadowReportStore& reports = store_->reports();
    EXPECT_TRUE(reports.CountDecisionsSince(t0).ok());
    EXPECT_TRUE(reports.KeyGroupsSince(t0).ok());
    (void)incidents.MarkSent("missing", "m", clock_.Now());  // kNotFound, after its lookup

    // The lease keeper.
    core::LeaseStore& leases = store_->leases();
    auto lease = leases.Acquire("poll:db", "me", clock_.Now(), minutes(1));
    EXPECT_TRUE(lease.ok());
    if (lease.ok()) {
      auto tx = incidents.Begin();
      ASSERT_TRUE(tx.ok());
      EXPECT_TRUE((*tx)->FencePoll("poll:db", lease->lease.token, clock_.Now()).ok());
      (void)(*tx)->Commit();
      EXPECT_TRUE(leases.Release("poll:db", "me", lease->lease.token, clock_.Now()).ok());
    }
    EXPECT_TRUE(leases.ListLeases().ok());
    core::InstanceSeen me;
    me.id = "me";
    me.host = "h";
    me.version = "v";
    EXPECT_TRUE(leases.SeeInstance(me, t0 - minutes(60)).ok());
    EXPECT_TRUE(leases.ListInstances().ok());
  }

  std::vector<Finding> ExplainSqlite() {
    std::vector<Finding> out;
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(test_store_->url().substr(7).c_str(), &db), SQLITE_OK);
    for (const std::string& sql : sqlite_texts_) {
      if (IsControl(sql)) continue;
      sqlite3_stmt* s = nullptr;
      const std::string explain = "EXPLAIN QUERY PLAN " + sql;
      if (sqlite3_prepare_v2(db, explain.c_str(), -1, &s, nullptr) != SQLITE_OK) {
        ADD_FAILURE() << "cannot EXPLAIN: " << sql << ": " << sqlite3_errmsg(db);
        continue;
      }
      std::string plan;
      std::string why;
      const std::map<std::string, std::string> aliases = Aliases(sql);
      while (sqlite3_step(s) == SQLITE_ROW) {
        const std::string detail = reinterpret_cast<const char*>(sqlite3_column_text(s, 3));
        plan += "  " + detail + "\n";
        if (std::string v = SqliteVerdict(detail, aliases); !v.empty() && why.empty()) why = v;
      }
      sqlite3_finalize(s);
      out.push_back(Finding{sql, plan, why});
    }
    sqlite3_close(db);
    return out;
  }

  std::vector<Finding> ExplainPostgres() {
    std::vector<Finding> out;
    PGconn* conn = PQconnectdb(test_store_->url().c_str());
    EXPECT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
    // A history to plan against: 5000 sent rows over 500 keys on the workload's channel and
    // 2000 grouped rows taken by 400 group messages of 50 groups, with statistics, so a small
    // partial index does not look cheaper than the right one. Then sequential scans off: tables
    // this small are read whole by choice, and the planner shows whether an index can serve the
    // statement at all.
    for (const char* sql :
         {"INSERT INTO outbox (idempotency_key, key, generation, version, transition, channel,"
          " payload, status, attempts, next_attempt_at, lease_owner, last_error,"
          " remote_message_id, created_at, updated_at) SELECT 'seed-' || g, 'seed:' || (g % 500),"
          " g / 500 + 1, 1, 'open', 'chat', '{}', 'sent', 1, 0, '', '', 'm', 0, 0 FROM"
          " generate_series(1, 5000) AS g",
          "INSERT INTO outbox (idempotency_key, key, generation, version, transition, channel,"
          " payload, status, attempts, next_attempt_at, lease_owner, last_error,"
          " remote_message_id, created_at, updated_at, group_key, group_row) SELECT 'seed-g' ||"
          " g, 'seed:' || (g % 500), g / 500 + 1, 2, 'open', 'chat', '{}', 'grouped', 0, 0, '',"
          " '', '', 0, 0, 'group-' || (g % 50), 'seed-row-' || (g % 400) FROM"
          " generate_series(1, 2000) AS g",
          "ANALYZE", "SET enable_seqscan = off"}) {
      PGresult* r = PQexec(conn, sql);
      EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << sql << ": " << PQresultErrorMessage(r);
      PQclear(r);
    }
    static const std::regex node(
        R"(^\s*(?:->\s*)?(Seq Scan|Index Scan|Index Only Scan|Bitmap Heap Scan)(?: Backward)?(?: using (\S+))? on (\w+).*$)");
    static const std::regex cond(R"(^\s*(Index Cond|Recheck Cond): (.*)$)");
    for (const auto& [sql, params] : pg_log_) {
      if (IsControl(sql) || sql.find(';') != std::string::npos) continue;
      std::vector<const char*> values;
      for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
      const std::string explain = "EXPLAIN " + sql;
      PGresult* r = PQexecParams(conn, explain.c_str(), static_cast<int>(values.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0);
      if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        ADD_FAILURE() << "cannot EXPLAIN: " << sql << ": " << PQresultErrorMessage(r);
        PQclear(r);
        continue;
      }
      std::string plan;
      std::string why;
      std::string open_table;  // an index scan on a history table awaiting its condition
      bool awaiting = false;
      bool live = false;  // ... through kLiveIndexes
      auto close = [&] {
        if (awaiting && why.empty()) why = "reads " + open_table + " whole (no index condition)";
        awaiting = false;
      };
      for (int i = 0; i < PQntuples(r); ++i) {
        const std::string line = PQgetvalue(r, i, 0);
        plan += "  " + line + "\n";
        std::smatch m;
        if (std::regex_match(line, m, node)) {
          close();
          const std::string table = m[3];
          if (kGrowing.count(table) == 0 || kWaitingIndexes.count(m[2]) != 0) continue;
          if (m[1] == "Seq Scan") {
            if (why.empty()) why = "reads " + table + " whole";
            continue;
          }
          open_table = table;
          awaiting = true;
          live = kLiveIndexes.count(m[2]) != 0;
        } else if (awaiting && std::regex_match(line, m, cond)) {
          awaiting = false;
          if (kHistory.count(open_table) != 0 && !live &&
              KeyOnly(ConstrainedColumns(m[2]), false) && why.empty()) {
            why = "reads every " + open_table + " row of the key or status";
          }
        } else if (awaiting && line.find("->") != std::string::npos) {
          close();
        }
      }
      close();
      PQclear(r);
      out.push_back(Finding{sql, plan, why});
    }
    PQfinish(conn);
    return out;
  }

  jsonl::JsonPayloadEncoder encoder_;
  FakeClock clock_{OutboxEpoch()};
  std::set<std::string> sqlite_texts_;
  postgres::PgIncidentStore::StatementLog pg_log_;
};

TEST_P(QueryPlanContractTest, NoStatementReadsAGrowingTableWhole) {
  Workload();
  if (HasFatalFailure()) return;
  const std::vector<Finding> findings =
      GetParam() == Backend::kSqlite ? ExplainSqlite() : ExplainPostgres();
  // A workload that stopped early would pass by seeing nothing.
  EXPECT_GT(findings.size(), 40u);
  std::ostringstream report;
  size_t bad = 0;
  for (const Finding& f : findings) {
    if (f.why.empty()) continue;
    const std::string allowed = Allowed(f.statement);
    if (!allowed.empty()) {
      report << "allowed (" << allowed << "): " << f.statement << "\n";
      continue;
    }
    ++bad;
    ADD_FAILURE() << f.why << ":\n" << f.statement << "\n" << f.plan;
  }
  std::cout << report.str() << findings.size() << " statements, " << bad << " failing\n";
}

INSTANTIATE_TEST_SUITE_P(Sqlite, QueryPlanContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, QueryPlanContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
