#include "quell/adapters/store_common/schema.h"

#include <array>

#include "quell/adapters/store_common/incident_page_sql.h"

namespace quell::store {
namespace {

// Times are BIGINT microseconds since the Unix epoch, UTC. The two dialects differ only where
// SQLite and PostgreSQL differ; column names, keys and indexes are the same. On SQLite the
// small, key-addressed tables are WITHOUT ROWID, so each row lives in one b-tree (its primary
// key) instead of two. The outbox keeps its rowid: its payload makes rows too wide for that.
// The outbox's UNIQUE (key, channel, generation, version) doubles as the supersede lookup.
#define QUELL_SCHEMA_V1(KEYED_TABLE)                                                          \
  "CREATE TABLE incidents ("                                                                  \
  " key TEXT PRIMARY KEY, condition TEXT NOT NULL, generation BIGINT NOT NULL,"               \
  " status TEXT NOT NULL, version BIGINT NOT NULL, opened_at BIGINT, first_seen_at BIGINT,"   \
  " last_seen_at BIGINT, last_observed_at BIGINT, last_notified_at BIGINT,"                   \
  " resolved_at BIGINT, healthy_streak BIGINT NOT NULL, event_count BIGINT NOT NULL,"         \
  " renotify_count BIGINT NOT NULL, flap_bits BIGINT NOT NULL, flap_count BIGINT NOT NULL,"   \
  " flapping BIGINT NOT NULL, acked_at BIGINT, acked_by TEXT NOT NULL,"                       \
  " recent_evidence TEXT NOT NULL)" KEYED_TABLE                                               \
  ";"                                                                                         \
  "CREATE TABLE decisions ("                                                                  \
  " key TEXT NOT NULL, version BIGINT NOT NULL, generation BIGINT NOT NULL,"                  \
  " poll_id TEXT NOT NULL, at BIGINT NOT NULL, decision TEXT NOT NULL, reason TEXT NOT NULL," \
  " PRIMARY KEY (key, version))" KEYED_TABLE                                                  \
  ";"                                                                                         \
  "CREATE INDEX decisions_at ON decisions (at);"                                              \
  "CREATE TABLE polls ("                                                                      \
  " poll_id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL, observations BIGINT NOT NULL,"      \
  " changed BIGINT NOT NULL, outbox_rows BIGINT NOT NULL, n_notify BIGINT NOT NULL,"          \
  " n_update_only BIGINT NOT NULL, n_wait_for_health BIGINT NOT NULL,"                        \
  " n_resolve BIGINT NOT NULL, n_ignore BIGINT NOT NULL, n_unknown BIGINT NOT NULL,"          \
  " n_stale BIGINT NOT NULL);"                                                                \
  "CREATE TABLE outbox ("                                                                     \
  " idempotency_key TEXT PRIMARY KEY, key TEXT NOT NULL, generation BIGINT NOT NULL,"         \
  " version BIGINT NOT NULL, transition TEXT NOT NULL, channel TEXT NOT NULL,"                \
  " payload TEXT NOT NULL, status TEXT NOT NULL, attempts BIGINT NOT NULL,"                   \
  " next_attempt_at BIGINT NOT NULL, lease_owner TEXT NOT NULL, lease_expires_at BIGINT,"     \
  " last_error TEXT NOT NULL, remote_message_id TEXT NOT NULL, created_at BIGINT NOT NULL,"   \
  " updated_at BIGINT NOT NULL,"                                                              \
  " UNIQUE (key, channel, generation, version));"                                             \
  "CREATE INDEX outbox_due ON outbox (status, next_attempt_at);"

// A poll must observe every open incident of its condition, so incidents_open holds only the
// open rows (most rows are resolved and stay out of it) in (condition, key) order, which serves
// ListOpenIncidents's ORDER BY without a sort. Key order is byte order on both: SQLite's default
// BINARY collation, and COLLATE "C" on PostgreSQL whatever the database's locale.
// source_marks holds each source's small memory between polls (e.g. a listing watermark).
#define QUELL_SCHEMA_V2(KEYED_TABLE, BYTE_ORDER)                        \
  "CREATE INDEX incidents_open ON incidents (condition, key" BYTE_ORDER \
  ") WHERE status = 'open';"                                            \
  "CREATE TABLE source_marks ("                                         \
  " name TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at BIGINT NOT NULL)" KEYED_TABLE ";"

// The dispatcher's claim scans outbox_live, the rows still to deliver, in (key, channel,
// generation, version) order: the ORDER BY of ClaimDue and the "no older row unsent" guard are
// both range reads on it, and sent, dead, shadow and superseded rows (most of the outbox) stay
// out of it. outbox_sent serves SentTimes, the rate rules' look-back per channel.
#define QUELL_SCHEMA_V3(BYTE_ORDER)                                           \
  "CREATE INDEX outbox_live ON outbox (key" BYTE_ORDER ", channel" BYTE_ORDER \
  ", generation, version) WHERE status IN ('pending', 'in_flight');"          \
  "CREATE INDEX outbox_sent ON outbox (channel, updated_at) WHERE status = 'sent';"

// budget_windows counts each tenant's notifications per channel and hour (see
// core/tenant_budget.h); outbox_folded finds the rows a digest reports.
#define QUELL_SCHEMA_V4(KEYED_TABLE, BYTE_ORDER)                                    \
  "CREATE TABLE budget_windows ("                                                   \
  " tenant TEXT NOT NULL, channel TEXT NOT NULL, window_start BIGINT NOT NULL,"     \
  " seen BIGINT NOT NULL, PRIMARY KEY (tenant, channel, window_start))" KEYED_TABLE \
  ";"                                                                               \
  "CREATE INDEX outbox_folded ON outbox (channel, key" BYTE_ORDER                   \
  ", created_at)"                                                                   \
  " WHERE status = 'folded';"

// silences are operators' key globs with an expiry; a poll reads the active ones (expires_at
// after now) once per transaction. Ids are never reused, so a stale `remove ID` cannot hit a
// newer silence: AUTOINCREMENT on SQLite, an identity column on PostgreSQL.
#define QUELL_SCHEMA_V5(ID_COLUMN)                                                \
  "CREATE TABLE silences (" ID_COLUMN                                             \
  ", pattern TEXT NOT NULL, expires_at BIGINT NOT NULL,"                          \
  " reason TEXT NOT NULL, created_by TEXT NOT NULL, created_at BIGINT NOT NULL);" \
  "CREATE INDEX silences_expires ON silences (expires_at);"

// key_groups keeps which error groups failed under which key, for `quell shadow-report`. Every
// poll upserts each failing pair, so it has no index past its key: the report scans it, which
// is rare, while an index on last_seen_at would be rewritten on every poll's every pair.
#define QUELL_SCHEMA_V6(KEYED_TABLE)                                                               \
  "CREATE TABLE key_groups ("                                                                      \
  " key TEXT NOT NULL, group_id TEXT NOT NULL, first_seen_at BIGINT NOT NULL,"                     \
  " last_seen_at BIGINT NOT NULL, polls BIGINT NOT NULL, PRIMARY KEY (key, group_id))" KEYED_TABLE \
  ";"

// A manual resolve holds its key resolved until the source is seen healthy or held_until
// passes (core/operator_actions.h). A poll must observe held keys as it observes open ones, so
// incidents_held lists them per condition like incidents_open; almost no row is ever in it.
#define QUELL_SCHEMA_V7(BYTE_ORDER)                                  \
  "ALTER TABLE incidents ADD COLUMN held BIGINT NOT NULL DEFAULT 0;" \
  "ALTER TABLE incidents ADD COLUMN held_until BIGINT;"              \
  "CREATE INDEX incidents_held ON incidents (condition, key" BYTE_ORDER ") WHERE held = 1;"

// Attempts are counted when a send's outcome is recorded, no longer at claim time; claims
// counts the leases taken (those beyond the attempts were lost with their holder), and
// throttled_since starts a throttled row's time budget. Retention deletes finished rows by
// age: outbox_done lists them by updated_at, leaving the live rows out as outbox_live does.
// Its predicate names the two live states, not the seven finished ones: SQLite evaluates an
// IN list of more than two values through a temporary table built at every insert (+20% of a
// first poll cycle's instructions measured), and two values as plain comparisons.
#define QUELL_SCHEMA_V8                                                 \
  "ALTER TABLE outbox ADD COLUMN claims BIGINT NOT NULL DEFAULT 0;"     \
  "ALTER TABLE outbox ADD COLUMN throttled_since BIGINT;"               \
  "CREATE INDEX outbox_done ON outbox (updated_at) WHERE status NOT IN" \
  " ('pending', 'in_flight');"

// What an incident is about (its labels, a JSON object of strings), the source's own event
// count and what the latest message reported of it, and the pending period's streak of
// failures before an open. A poll must observe pending keys as it observes open ones (a healthy
// poll ends the streak), so incidents_pending lists them per condition like incidents_held.
#define QUELL_SCHEMA_V9(BYTE_ORDER)                                              \
  "ALTER TABLE incidents ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';"          \
  "ALTER TABLE incidents ADD COLUMN unhealthy_streak BIGINT NOT NULL DEFAULT 0;" \
  "ALTER TABLE incidents ADD COLUMN upstream_count BIGINT;"                      \
  "ALTER TABLE incidents ADD COLUMN upstream_count_at_message BIGINT;"           \
  "ALTER TABLE incidents ADD COLUMN upstream_count_since_message BIGINT;"        \
  "CREATE INDEX incidents_pending ON incidents (condition, key" BYTE_ORDER       \
  ") WHERE"                                                                      \
  " unhealthy_streak > 0;"

// Grouped notifications (core/delivery/grouping.h): a grouped row waits in its group
// (group_key) until a group message takes it (group_row, that message's idempotency key).
// outbox_waiting finds the waiting members per (channel, group), outbox_members a group row's
// members and the members of a (channel, group) for its open count. outbox_groups holds each
// group's last sequence and message time, so the sequence never restarts when retention has
// deleted old group rows (a restarted sequence would reuse idempotency keys).
#define QUELL_SCHEMA_V10(KEYED_TABLE, BYTE_ORDER)                                              \
  "ALTER TABLE outbox ADD COLUMN group_key TEXT;"                                              \
  "ALTER TABLE outbox ADD COLUMN group_row TEXT;"                                              \
  "CREATE INDEX outbox_waiting ON outbox (channel" BYTE_ORDER ", group_key" BYTE_ORDER         \
  ", created_at) WHERE status = 'grouped' AND group_row IS NULL;"                              \
  "CREATE INDEX outbox_members ON outbox (group_row" BYTE_ORDER ", created_at, key" BYTE_ORDER \
  ") WHERE group_row IS NOT NULL;"                                                             \
  "CREATE INDEX outbox_group_keys ON outbox (channel" BYTE_ORDER ", group_key" BYTE_ORDER      \
  ", key" BYTE_ORDER                                                                           \
  ") WHERE status = 'grouped' AND group_row IS NOT NULL;"                                      \
  "CREATE TABLE outbox_groups ("                                                               \
  " channel TEXT NOT NULL, group_key TEXT NOT NULL, last_sequence BIGINT NOT NULL,"            \
  " last_message_at BIGINT NOT NULL, PRIMARY KEY (channel, group_key))" KEYED_TABLE ";"

// Escalation tiers (core/conditions/escalation.h): the tier an outbox row belongs to, 0 for
// an ordinary row. The cancel on ack finds a generation's rows by the unique index's key prefix.
#define QUELL_SCHEMA_V11 "ALTER TABLE outbox ADD COLUMN tier BIGINT NOT NULL DEFAULT 0;"

// Poll leases (core/ports/lease_store.h): one row per poll group, its holder, expiry and the
// fencing token a poll's commit checks; polled_at is the last poll committed under it, so a new
// holder keeps the interval. instances is what each lease keeper last wrote of its process.
#define QUELL_SCHEMA_V12(KEYED_TABLE)                                                     \
  "CREATE TABLE poll_leases ("                                                            \
  " name TEXT PRIMARY KEY, holder TEXT NOT NULL, token BIGINT NOT NULL,"                  \
  " expires_at BIGINT NOT NULL, acquired_at BIGINT NOT NULL, renewed_at BIGINT NOT NULL," \
  " polled_at BIGINT)" KEYED_TABLE                                                        \
  ";"                                                                                     \
  "CREATE TABLE instances ("                                                              \
  " id TEXT PRIMARY KEY, host TEXT NOT NULL, pid BIGINT NOT NULL, version TEXT NOT NULL," \
  " started_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL)" KEYED_TABLE ";"

// The operator page's memory (docs/page.md). observation_marks keeps what the decision log
// leaves out for a key that has an incident: the observations that changed nothing (a failed
// or partial poll's unknown, a stale replay), so an incident's timeline shows every poll. One
// row per (key, poll id), so a replayed poll adds nothing. delivery_attempts keeps each send
// attempt's outcome (the outbox row keeps only the count and the last error), so a retried
// send shows as two attempts under one idempotency key. maintenance_windows holds the one-off
// windows operators add from the page or the API, beside the configured recurring ones; an
// expired window stays (ends_at moved to the expiry) so the poll that finds it closed announces
// the opens it muted. Each is pruned by its time column.
#define QUELL_SCHEMA_V13(KEYED_TABLE, ID_COLUMN)                                               \
  "CREATE TABLE observation_marks ("                                                           \
  " key TEXT NOT NULL, poll_id TEXT NOT NULL, at BIGINT NOT NULL, generation BIGINT NOT NULL," \
  " health TEXT NOT NULL, decision TEXT NOT NULL, PRIMARY KEY (key, poll_id))" KEYED_TABLE     \
  ";"                                                                                          \
  "CREATE INDEX observation_marks_at ON observation_marks (at);"                               \
  "CREATE TABLE delivery_attempts ("                                                           \
  " idempotency_key TEXT NOT NULL, attempt BIGINT NOT NULL, key TEXT NOT NULL,"                \
  " channel TEXT NOT NULL, generation BIGINT NOT NULL, at BIGINT NOT NULL,"                    \
  " outcome TEXT NOT NULL, detail TEXT NOT NULL, PRIMARY KEY (idempotency_key, "               \
  "attempt))" KEYED_TABLE                                                                      \
  ";"                                                                                          \
  "CREATE INDEX delivery_attempts_key ON delivery_attempts (key, at);"                         \
  "CREATE INDEX delivery_attempts_at ON delivery_attempts (at);"                               \
  "CREATE TABLE maintenance_windows (" ID_COLUMN                                               \
  ", name TEXT NOT NULL, keys TEXT NOT NULL, labels TEXT NOT NULL, starts_at BIGINT NOT NULL," \
  " ends_at BIGINT NOT NULL, reason TEXT NOT NULL, created_by TEXT NOT NULL,"                  \
  " created_at BIGINT NOT NULL);"                                                              \
  "CREATE INDEX maintenance_windows_ends ON maintenance_windows (ends_at);"

// The operator page's list (GET /v1/incidents?order=triage) reads incidents_triage in order and
// stops after its page, instead of sorting every incident (bench/page: docs/benchmarks.md).
// Its terms are the list's ORDER BY (store_common/incident_page_sql.h) verbatim.
#define QUELL_SCHEMA_V14(BYTE_ORDER)                                                    \
  "CREATE INDEX incidents_triage ON incidents (" QUELL_TRIAGE_RANK ", " QUELL_TRIAGE_AT \
  " DESC, key" BYTE_ORDER ");"

// What a silence's text is (core::SilenceMatch): one exact key, or a key glob. Every silence
// stored before was a glob, and stays one.
#define QUELL_SCHEMA_V15                                                    \
  "ALTER TABLE silences ADD COLUMN match_kind TEXT NOT NULL DEFAULT 'glob'" \
  " CHECK (match_kind IN ('glob', 'exact'));"

// Callbacks bound to what they name (core/delivery/callback_key.h, docs/http.md). episode is
// a group's current episode on its channel (core::StoredEpisode): NULL for a group last
// messaged before this step, whose alert keeps its old key until it ends. callback_events
// remembers each provider's event ids until the provider stops retrying them, so a duplicate
// delivery changes nothing; rows are deleted once expired, by the next callback.
#define QUELL_SCHEMA_V16(KEYED_TABLE)                                            \
  "ALTER TABLE outbox_groups ADD COLUMN episode BIGINT;"                         \
  "CREATE TABLE callback_events ("                                               \
  " provider TEXT NOT NULL, event_id TEXT NOT NULL, expires_at BIGINT NOT NULL," \
  " PRIMARY KEY (provider, event_id))" KEYED_TABLE                               \
  ";"                                                                            \
  "CREATE INDEX callback_events_expiry ON callback_events (expires_at);"

// Lookups whose cost must not grow with history (issue 33; test/contract/
// query_plan_contract_test.cc EXPLAINs every statement). outbox_generation serves the
// statements that ask about one incident generation (which channels heard it, never saw it
// live, hold it behind an inhibitor): the unique index leads with (key, channel), so they read
// every row the key ever had. outbox_tier_waiting holds the escalation tiers still waiting to
// be paged, by generation: the cancel that an ack or a resolve runs finds them there, and when
// it is empty (no escalation configured, or every tier paged) the cancel is skipped. Its
// predicate is the cancel's, verbatim: SQLite uses a partial index only for a query that
// repeats each of its terms. key_groups_seen lets each poll's prune find the expired rows
// without reading them all. The key columns keep the database's collation on PostgreSQL: the
// statements compare keys with it, and an index in another collation cannot serve "=".
#define QUELL_SCHEMA_V17                                                            \
  "CREATE INDEX outbox_generation ON outbox (key, generation, channel);"            \
  "CREATE INDEX outbox_tier_waiting ON outbox (key, generation) WHERE tier > 0 AND" \
  " (status = 'pending' OR (status = 'grouped' AND group_row IS NULL));"            \
  "CREATE INDEX key_groups_seen ON key_groups (last_seen_at);"

// The claim reads the outbox in due order and stops at the first row not yet due, so a
// backlog backing off (a receiver down) costs it nothing. outbox_pending_due lists the pending
// rows by next_attempt_at, ties in the (key, channel, generation, version) byte order the
// claim has always used; outbox_leases the in-flight rows by the end of their lease, which a
// dead holder's rows pass. Both hold only live rows: the claim moves a row from the first to
// the second, its outcome out of both.
#define QUELL_SCHEMA_V18(BYTE_ORDER)                                           \
  "CREATE INDEX outbox_pending_due ON outbox (next_attempt_at, key" BYTE_ORDER \
  ", channel" BYTE_ORDER                                                       \
  ", generation, version) WHERE status = 'pending';"                           \
  "CREATE INDEX outbox_leases ON outbox (lease_expires_at) WHERE status = 'in_flight';"

// What each outbox row is (core::OutboxRowKind), in a column of its own instead of read off
// its key. The keys stay as they are (idempotency keys are derived from them); rows written
// before this step are labelled from their key's prefix, which is what marked them then. The
// CHECK is a chain of equalities, not IN: SQLite builds an IN list of more than two values as
// a temporary b-tree on every insert (+14% instructions for a 10k first poll cycle).
#define QUELL_SCHEMA_V19                                                              \
  "ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'incident' CHECK (kind =" \
  " 'incident' OR kind = 'group' OR kind = 'digest' OR kind = 'dead_letter');"        \
  "UPDATE outbox SET kind = 'group' WHERE substr(key, 1, 8) = '{group}:';"            \
  "UPDATE outbox SET kind = 'digest' WHERE substr(key, 1, 9) = '{digest}:';"          \
  "UPDATE outbox SET kind = 'dead_letter' WHERE key = '{dead_letter}';"

// delivery_attempts keyed by incident key first. Its old key led with the idempotency key, a
// hash: a dispatch round's attempts landed on as many pages as it had rows, and SQLite's commit
// wrote each of them to the WAL (8 KB a send measured, 1.7 KB after; docs/benchmarks.md). A
// storm's rows are claimed in key order, so keyed by key they fill neighbouring pages. The
// idempotency key still decides uniqueness (the key is part of it). SQLite cannot change a
// primary key in place, so both stores copy the table. On PostgreSQL an instance of the
// release before keeps writing attempts during a rolling restart: the lock keeps its commits
// out of the gap between the copy and the drop (SQLite's BEGIN IMMEDIATE already does), and
// the renamed table's key takes back the name it had, so a later step can name it.
#define QUELL_SCHEMA_V20(KEYED_TABLE, LOCK_COPIED, NAME_KEY)                            \
  LOCK_COPIED                                                                           \
  "CREATE TABLE delivery_attempts_by_key ("                                             \
  " idempotency_key TEXT NOT NULL, attempt BIGINT NOT NULL, key TEXT NOT NULL,"         \
  " channel TEXT NOT NULL, generation BIGINT NOT NULL, at BIGINT NOT NULL,"             \
  " outcome TEXT NOT NULL, detail TEXT NOT NULL,"                                       \
  " PRIMARY KEY (key, idempotency_key, attempt))" KEYED_TABLE                           \
  ";"                                                                                   \
  "INSERT INTO delivery_attempts_by_key SELECT idempotency_key, attempt, key, channel," \
  " generation, at, outcome, detail FROM delivery_attempts;"                            \
  "DROP TABLE delivery_attempts;"                                                       \
  "ALTER TABLE delivery_attempts_by_key RENAME TO delivery_attempts;"                   \
  "CREATE INDEX delivery_attempts_key ON delivery_attempts (key, at);"                  \
  "CREATE INDEX delivery_attempts_at ON delivery_attempts (at);" NAME_KEY
// What an incident's newest evidence was built from (Incident::evidence_fingerprint): a steady
// poll of an unchanged error group takes that evidence instead of building it again. NULL for
// the rows before it, which build it once more.
// incidents_open also holds the status its predicate tests: SQLite (3.40) then answers a
// poll's sweep of the watched keys (ListWatchedKeysAfter) from the index alone, where it
// looked every key up in the table too (at 1M open incidents, a read of the whole table).
#define QUELL_SCHEMA_V21(BYTE_ORDER)                                    \
  "ALTER TABLE incidents ADD COLUMN evidence_fingerprint BIGINT;"       \
  "DROP INDEX incidents_open;"                                          \
  "CREATE INDEX incidents_open ON incidents (condition, key" BYTE_ORDER \
  ", status) WHERE status = 'open';"

constexpr std::array<Migration, 21> kMigrations = {{
    {1, "incidents, decision log, polls and outbox", QUELL_SCHEMA_V1(" WITHOUT ROWID"),
     QUELL_SCHEMA_V1("")},
    {2, "open-incident index and source marks", QUELL_SCHEMA_V2(" WITHOUT ROWID", ""),
     QUELL_SCHEMA_V2("", " COLLATE \"C\"")},
    {3, "outbox claim and sent-time indexes", QUELL_SCHEMA_V3(""),
     QUELL_SCHEMA_V3(" COLLATE \"C\"")},
    {4, "tenant budget windows and folded rows", QUELL_SCHEMA_V4(" WITHOUT ROWID", ""),
     QUELL_SCHEMA_V4("", " COLLATE \"C\"")},
    {5, "operator silences", QUELL_SCHEMA_V5("id INTEGER PRIMARY KEY AUTOINCREMENT"),
     QUELL_SCHEMA_V5("id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")},
    {6, "error groups seen per key", QUELL_SCHEMA_V6(" WITHOUT ROWID"), QUELL_SCHEMA_V6("")},
    {7, "manual resolve holds", QUELL_SCHEMA_V7(""), QUELL_SCHEMA_V7(" COLLATE \"C\"")},
    {8, "attempts counted at outcome, throttle budget, outbox retention", QUELL_SCHEMA_V8,
     QUELL_SCHEMA_V8},
    {9, "incident labels, upstream counts and the pending streak", QUELL_SCHEMA_V9(""),
     QUELL_SCHEMA_V9(" COLLATE \"C\"")},
    {10, "grouped notifications", QUELL_SCHEMA_V10(" WITHOUT ROWID", ""),
     QUELL_SCHEMA_V10("", " COLLATE \"C\"")},
    {11, "escalation tiers", QUELL_SCHEMA_V11, QUELL_SCHEMA_V11},
    {12, "poll leases", QUELL_SCHEMA_V12(" WITHOUT ROWID"), QUELL_SCHEMA_V12("")},
    {13, "observation marks, delivery attempts and one-off maintenance windows",
     QUELL_SCHEMA_V13(" WITHOUT ROWID", "id INTEGER PRIMARY KEY AUTOINCREMENT"),
     QUELL_SCHEMA_V13("", "id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")},
    {14, "the incident list's triage order", QUELL_SCHEMA_V14(""),
     QUELL_SCHEMA_V14(" COLLATE \"C\"")},
    {15, "exact-key silences", QUELL_SCHEMA_V15, QUELL_SCHEMA_V15},
    {16, "group episodes and remembered callback events", QUELL_SCHEMA_V16(" WITHOUT ROWID"),
     QUELL_SCHEMA_V16("")},
    {17, "outbox rows by generation, waiting escalation tiers, key groups by age", QUELL_SCHEMA_V17,
     QUELL_SCHEMA_V17},
    {18, "outbox rows by due time and by lease end", QUELL_SCHEMA_V18(""),
     QUELL_SCHEMA_V18(" COLLATE \"C\"")},
    {19, "outbox row kinds", QUELL_SCHEMA_V19, QUELL_SCHEMA_V19},
    {20, "delivery attempts keyed by incident key", QUELL_SCHEMA_V20(" WITHOUT ROWID", "", ""),
     QUELL_SCHEMA_V20(
         "", "LOCK TABLE delivery_attempts IN ACCESS EXCLUSIVE MODE;",
         "ALTER INDEX delivery_attempts_by_key_pkey RENAME TO delivery_attempts_pkey;")},
    {21, "the fingerprint of an incident's newest evidence, the open index covering its test",
     QUELL_SCHEMA_V21(""), QUELL_SCHEMA_V21(" COLLATE \"C\"")},
}};

#undef QUELL_SCHEMA_V21
#undef QUELL_SCHEMA_V20
#undef QUELL_SCHEMA_V19
#undef QUELL_SCHEMA_V18
#undef QUELL_SCHEMA_V17
#undef QUELL_SCHEMA_V16
#undef QUELL_SCHEMA_V15
#undef QUELL_SCHEMA_V14

#undef QUELL_SCHEMA_V13
#undef QUELL_SCHEMA_V12
#undef QUELL_SCHEMA_V11
#undef QUELL_SCHEMA_V10
#undef QUELL_SCHEMA_V9

#undef QUELL_SCHEMA_V8
#undef QUELL_SCHEMA_V7
#undef QUELL_SCHEMA_V6
#undef QUELL_SCHEMA_V5
#undef QUELL_SCHEMA_V4
#undef QUELL_SCHEMA_V3
#undef QUELL_SCHEMA_V2
#undef QUELL_SCHEMA_V1

}  // namespace

std::span<const Migration> Migrations() { return kMigrations; }

}  // namespace quell::store
