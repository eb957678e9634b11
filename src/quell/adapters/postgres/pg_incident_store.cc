#include "quell/adapters/postgres/pg_incident_store.h"

#include <libpq-fe.h>

#include <charconv>
#include <cstring>
#include <utility>

#include "quell/adapters/postgres/pg_connection.h"
#include "quell/adapters/store_common/incident_codec.h"
#include "quell/adapters/store_common/incident_page_sql.h"
#include "quell/adapters/store_common/lease_rules.h"
#include "quell/adapters/store_common/schema.h"
#include "quell/core/conditions/shadow_report.h"

namespace quell::postgres {
namespace {

using core::ErrorCode;
using core::MakeError;
using core::Status;

constexpr int64_t kMigrationLock = 0x7175656c6c;  // "quell"

constexpr const char* kIncidentColumns =
    "key, condition, generation, status, version, opened_at, first_seen_at, last_seen_at,"
    " last_observed_at, last_notified_at, resolved_at, healthy_streak, event_count,"
    " renotify_count, flap_bits, flap_count, flapping, acked_at, acked_by, recent_evidence, held,"
    " held_until, labels, unhealthy_streak, upstream_count, upstream_count_at_message,"
    " upstream_count_since_message, evidence_fingerprint";
// How many columns kIncidentColumns names: a statement's extra columns come after them.
constexpr int kIncidentColumnCount = 28;
// The start of both key_groups writes; each adds what a pair already there gets.
constexpr const char* kInsertKeyGroups =
    "INSERT INTO key_groups (key, group_id, first_seen_at, last_seen_at, polls)"
    " SELECT u.key, u.group_id, $3, $3, 1 FROM unnest($1::text[], $2::text[])"
    " AS u (key, group_id) ON CONFLICT (key, group_id)";

constexpr const char* kIncidentTypes =
    "$1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[],"
    " $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[],"
    " $13::bigint[], $14::bigint[], $15::bigint[], $16::bigint[], $17::bigint[], $18::bigint[],"
    " $19::text[], $20::text[], $21::bigint[], $22::bigint[], $23::text[], $24::bigint[],"
    " $25::bigint[], $26::bigint[], $27::bigint[], $28::bigint[]";

std::optional<uint64_t> OptionalUintAt(const PGresult* r, int row, int col) {
  if (PQgetisnull(r, row, col)) return std::nullopt;
  return UintAt(r, row, col);
}

void OptionalUint(ArrayBuilder& column, std::optional<uint64_t> v) {
  column.Time(v ? std::optional<core::WallTime>(store::FromMicros(static_cast<int64_t>(*v)))
                : std::nullopt);  // NULL or the number: Time writes a BIGINT
}

core::Result<core::Incident> ReadIncident(const PGresult* r, int row) {
  core::Incident in;
  in.key = TextAt(r, row, 0);
  in.condition = TextAt(r, row, 1);
  in.generation = UintAt(r, row, 2);
  auto status = store::ParseIncidentStatus(TextAt(r, row, 3));
  if (!status) return status.error();
  in.status = *status;
  in.version = UintAt(r, row, 4);
  in.opened_at = TimeAt(r, row, 5);
  in.first_seen_at = TimeAt(r, row, 6);
  in.last_seen_at = TimeAt(r, row, 7);
  in.last_observed_at = TimeAt(r, row, 8);
  in.last_notified_at = TimeAt(r, row, 9);
  in.resolved_at = TimeAt(r, row, 10);
  in.healthy_streak = static_cast<uint32_t>(UintAt(r, row, 11));
  in.event_count = UintAt(r, row, 12);
  in.renotify_count = static_cast<uint32_t>(UintAt(r, row, 13));
  in.flap_history = core::FlapHistory(static_cast<uint32_t>(UintAt(r, row, 14)),
                                      static_cast<uint32_t>(UintAt(r, row, 15)));
  in.flapping = UintAt(r, row, 16) != 0;
  in.acked_at = TimeAt(r, row, 17);
  in.acked_by = TextAt(r, row, 18);
  auto evidence = store::DecodeEvidence(TextAt(r, row, 19));
  if (!evidence) return evidence.error();
  in.recent_evidence = std::move(*evidence);
  in.held = UintAt(r, row, 20) != 0;
  in.held_until = TimeAt(r, row, 21);
  auto labels = store::DecodeLabels(TextAt(r, row, 22));
  if (!labels) return labels.error();
  in.labels = std::move(*labels);
  in.unhealthy_streak = static_cast<uint32_t>(UintAt(r, row, 23));
  in.upstream_count = OptionalUintAt(r, row, 24);
  in.upstream_count_at_message = OptionalUintAt(r, row, 25);
  in.upstream_count_since_previous_message = OptionalUintAt(r, row, 26);
  // Stored as the BIGINT with the same bits.
  if (!PQgetisnull(r, row, 27)) {
    in.evidence_fingerprint = static_cast<uint64_t>(ParseInt(PQgetvalue(r, row, 27)));
  }
  return in;
}

core::Result<std::vector<core::Incident>> ReadIncidents(const PGresult* r) {
  std::vector<core::Incident> out;
  const int rows = PQntuples(r);
  out.reserve(static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) {
    auto incident = ReadIncident(r, i);
    if (!incident) return incident.error();
    out.push_back(std::move(*incident));
  }
  return out;
}

// The 28 incident columns as 28 array parameters.
std::vector<std::string> IncidentArrays(std::span<const core::IncidentWrite> writes,
                                        bool with_expected) {
  std::vector<ArrayBuilder> cols(kIncidentColumnCount + (with_expected ? 1 : 0));
  for (const core::IncidentWrite& w : writes) {
    const core::Incident& in = w.incident;
    cols[0].Text(in.key);
    cols[1].Text(in.condition);
    cols[2].Uint(in.generation);
    cols[3].Text(core::IncidentStatusName(in.status));
    cols[4].Uint(in.version);
    cols[5].Time(in.opened_at);
    cols[6].Time(in.first_seen_at);
    cols[7].Time(in.last_seen_at);
    cols[8].Time(in.last_observed_at);
    cols[9].Time(in.last_notified_at);
    cols[10].Time(in.resolved_at);
    cols[11].Uint(in.healthy_streak);
    cols[12].Uint(in.event_count);
    cols[13].Uint(in.renotify_count);
    cols[14].Uint(in.flap_history.bits());
    cols[15].Uint(in.flap_history.count());
    cols[16].Int(in.flapping ? 1 : 0);
    cols[17].Time(in.acked_at);
    cols[18].Text(in.acked_by);
    cols[19].Text(store::EncodeEvidence(in.recent_evidence));
    cols[20].Int(in.held ? 1 : 0);
    cols[21].Time(in.held_until);
    cols[22].Text(store::EncodeLabels(in.labels));
    cols[23].Uint(in.unhealthy_streak);
    OptionalUint(cols[24], in.upstream_count);
    OptionalUint(cols[25], in.upstream_count_at_message);
    OptionalUint(cols[26], in.upstream_count_since_previous_message);
    if (in.evidence_fingerprint) {
      cols[27].Int(static_cast<int64_t>(*in.evidence_fingerprint));
    } else {
      cols[27].Time(std::nullopt);  // NULL
    }
    if (with_expected) cols[28].Uint(w.expected_version);
  }
  std::vector<std::string> out;
  out.reserve(cols.size());
  for (ArrayBuilder& c : cols) out.push_back(c.Finish());
  return out;
}

class PgTransaction : public core::StoreTransaction {
 public:
  explicit PgTransaction(Connection& c) : c_(c) {}
  ~PgTransaction() override {
    if (!done_) (void)c_.Run("ROLLBACK");
  }

  Status LoadIncidents(std::span<const std::string> keys,
                       std::vector<core::Incident>& out) override {
    if (keys.empty()) return {};
    ArrayBuilder array;
    for (const std::string& key : keys) array.Text(key);
    static const std::string sql = std::string("SELECT ") + kIncidentColumns +
                                   " FROM incidents WHERE key = ANY($1::text[])"
                                   " ORDER BY key FOR UPDATE";
    auto result = c_.Run(sql, {array.Finish()});
    if (!result) return result.error();
    auto incidents = ReadIncidents(result->get());
    if (!incidents) return incidents.error();
    for (core::Incident& in : *incidents) out.push_back(std::move(in));
    return {};
  }

  Status LoadVersions(std::span<const std::string> keys,
                      std::vector<std::pair<std::string, uint64_t>>& out) override {
    if (keys.empty()) return {};
    ArrayBuilder array;
    for (const std::string& key : keys) array.Text(key);
    // Locked as LoadIncidents locks: the versions must still hold when the chunk is written.
    static const std::string sql =
        "SELECT key, version FROM incidents WHERE key = ANY($1::text[])"
        " ORDER BY key COLLATE \"C\" FOR UPDATE";
    auto result = c_.Run(sql, {array.Finish()});
    if (!result) return result.error();
    PGresult* rows = result->get();
    for (int r = 0; r < PQntuples(rows); ++r) {
      uint64_t version = 0;
      const char* text = PQgetvalue(rows, r, 1);
      const auto parsed = std::from_chars(text, text + PQgetlength(rows, r, 1), version);
      if (parsed.ec != std::errc()) {
        return MakeError(ErrorCode::kCorrupt, "incident version does not parse");
      }
      out.emplace_back(
          std::string(PQgetvalue(rows, r, 0), static_cast<size_t>(PQgetlength(rows, r, 0))),
          version);
    }
    return {};
  }

  Status Savepoint() override {
    // A new savepoint would shadow the old one; release the old so they do not pile up.
    auto result = c_.RunScript(has_savepoint_ ? "RELEASE SAVEPOINT chunk; SAVEPOINT chunk"
                                              : "SAVEPOINT chunk");
    if (!result) return result.error();
    has_savepoint_ = true;
    return {};
  }

  Status RollbackToSavepoint() override {
    auto result = c_.Run("ROLLBACK TO SAVEPOINT chunk");
    if (!result) return result.error();
    return {};
  }

  Status PutIncidents(std::span<const core::IncidentWrite> writes) override {
    std::vector<core::IncidentWrite> inserts;
    std::vector<core::IncidentWrite> updates;
    for (const core::IncidentWrite& w : writes) {
      (w.expected_version == 0 ? inserts : updates).push_back(w);
    }
    if (!inserts.empty()) {
      static const std::string sql = std::string("INSERT INTO incidents (") + kIncidentColumns +
                                     ") SELECT * FROM unnest(" + kIncidentTypes +
                                     ") ON CONFLICT (key) DO NOTHING";
      auto result = c_.Run(sql, IncidentArrays(inserts, false));
      if (!result) return result.error();
      if (Affected(result->get()) != inserts.size()) {
        return MakeError(ErrorCode::kConflict, "another writer created some of these incidents");
      }
    }
    if (!updates.empty()) {
      static const std::string sql =
          std::string(
              "UPDATE incidents AS i SET condition = u.condition, generation = u.generation,"
              " status = u.status, version = u.version, opened_at = u.opened_at,"
              " first_seen_at = u.first_seen_at, last_seen_at = u.last_seen_at,"
              " last_observed_at = u.last_observed_at, last_notified_at = u.last_notified_at,"
              " resolved_at = u.resolved_at, healthy_streak = u.healthy_streak,"
              " event_count = u.event_count, renotify_count = u.renotify_count,"
              " flap_bits = u.flap_bits, flap_count = u.flap_count, flapping = u.flapping,"
              " acked_at = u.acked_at, acked_by = u.acked_by,"
              " recent_evidence = u.recent_evidence, held = u.held, held_until = u.held_until,"
              " labels = u.labels, unhealthy_streak = u.unhealthy_streak,"
              " upstream_count = u.upstream_count,"
              " upstream_count_at_message = u.upstream_count_at_message,"
              " upstream_count_since_message = u.upstream_count_since_message,"
              " evidence_fingerprint = u.evidence_fingerprint"
              " FROM unnest(") +
          kIncidentTypes + ", $29::bigint[]) AS u(" + kIncidentColumns +
          ", expected) WHERE i.key = u.key AND i.version = u.expected";
      auto result = c_.Run(sql, IncidentArrays(updates, true));
      if (!result) return result.error();
      if (Affected(result->get()) != updates.size()) {
        return MakeError(ErrorCode::kConflict, "another writer changed some of these incidents");
      }
    }
    return {};
  }

  Status AppendDecisions(std::string_view poll_id,
                         std::span<const core::DecisionRecord> decisions) override {
    if (decisions.empty()) return {};
    std::vector<ArrayBuilder> cols(6);
    for (const core::DecisionRecord& d : decisions) {
      cols[0].Text(d.key);
      cols[1].Uint(d.version);
      cols[2].Uint(d.generation);
      cols[3].Int(store::ToMicros(d.at));
      cols[4].Text(core::DecisionName(d.kind));
      cols[5].Text(core::ReasonName(d.reason));
    }
    std::vector<std::string> params;
    params.reserve(cols.size() + 1);
    for (ArrayBuilder& c : cols) params.push_back(c.Finish());
    params.emplace_back(poll_id);
    static const std::string sql =
        "INSERT INTO decisions (key, version, generation, at, decision, reason, poll_id)"
        " SELECT u.*, $7 FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[],"
        " $5::text[], $6::text[]) AS u ON CONFLICT DO NOTHING";
    auto result = c_.Run(sql, params);
    if (!result) return result.error();
    return {};
  }

  Status AddObservationMarks(std::span<const core::ObservationMark> marks) override {
    if (marks.empty()) return {};
    std::vector<ArrayBuilder> cols(6);
    for (const core::ObservationMark& m : marks) {
      cols[0].Text(m.key);
      cols[1].Text(m.poll_id);
      cols[2].Int(store::ToMicros(m.at));
      cols[3].Uint(m.generation);
      cols[4].Text(core::HealthName(m.health));
      cols[5].Text(core::DecisionName(m.decision));
    }
    std::vector<std::string> params;
    params.reserve(cols.size());
    for (ArrayBuilder& c : cols) params.push_back(c.Finish());
    static const std::string sql =
        "INSERT INTO observation_marks (key, poll_id, at, generation, health, decision)"
        " SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[],"
        " $6::text[]) ON CONFLICT DO NOTHING";
    auto result = c_.Run(sql, params);
    if (!result) return result.error();
    return {};
  }

  core::Result<std::vector<core::GenerationChannel>> NeverLiveChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) override {
    std::vector<core::GenerationChannel> out;
    if (generations.empty()) return out;
    ArrayBuilder keys;
    ArrayBuilder numbers;
    for (const auto& [key, generation] : generations) {
      keys.Text(key);
      numbers.Uint(generation);
    }
    static const std::string sql =
        "SELECT o.key, o.generation, o.channel FROM outbox o JOIN unnest($1::text[],"
        " $2::bigint[]) AS u(key, generation) ON o.key = u.key AND o.generation = u.generation"
        " GROUP BY o.key, o.generation, o.channel HAVING"
        " bool_and(o.status IN ('shadow', 'muted', 'cancelled', 'inhibited') OR"
        " (o.status = 'silenced' AND o.transition <> 'open'))"
        " ORDER BY o.key COLLATE \"C\", o.channel COLLATE \"C\"";
    auto result = c_.Run(sql, {keys.Finish(), numbers.Finish()});
    if (!result) return result.error();
    const PGresult* r = result->get();
    for (int i = 0; i < PQntuples(r); ++i) {
      out.push_back(core::GenerationChannel{
          TextAt(r, i, 0), static_cast<uint64_t>(ParseInt(PQgetvalue(r, i, 1))), TextAt(r, i, 2)});
    }
    return out;
  }

  core::Result<std::vector<core::GenerationChannel>> HeardChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) override {
    std::vector<core::GenerationChannel> out;
    if (generations.empty()) return out;
    ArrayBuilder keys;
    ArrayBuilder numbers;
    for (const auto& [key, generation] : generations) {
      keys.Text(key);
      numbers.Uint(generation);
    }
    static const std::string sql =
        "SELECT DISTINCT o.key COLLATE \"C\", o.generation, o.channel COLLATE \"C\" FROM outbox o"
        " JOIN unnest($1::text[], $2::bigint[]) AS u(key, generation) ON o.key = u.key AND"
        " o.generation = u.generation WHERE o.status IN ('pending', 'in_flight', 'grouped',"
        " 'sent', 'folded') ORDER BY 1, 3";
    auto result = c_.Run(sql, {keys.Finish(), numbers.Finish()});
    if (!result) return result.error();
    const PGresult* r = result->get();
    for (int i = 0; i < PQntuples(r); ++i) {
      out.push_back(core::GenerationChannel{
          TextAt(r, i, 0), static_cast<uint64_t>(ParseInt(PQgetvalue(r, i, 1))), TextAt(r, i, 2)});
    }
    return out;
  }

  core::Result<std::vector<core::HeldChannel>> InhibitedChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) override {
    std::vector<core::HeldChannel> out;
    if (generations.empty()) return out;
    ArrayBuilder keys;
    ArrayBuilder numbers;
    for (const auto& [key, generation] : generations) {
      keys.Text(key);
      numbers.Uint(generation);
    }
    static const std::string sql =
        "SELECT o.key, o.generation, o.channel, o.last_error FROM outbox o JOIN"
        " unnest($1::text[], $2::bigint[]) AS u(key, generation) ON o.key = u.key AND"
        " o.generation = u.generation WHERE o.status = 'inhibited'"
        " ORDER BY o.key COLLATE \"C\", o.generation, o.channel COLLATE \"C\", o.created_at,"
        " o.version";
    auto result = c_.Run(sql, {keys.Finish(), numbers.Finish()});
    if (!result) return result.error();
    const PGresult* r = result->get();
    for (int i = 0; i < PQntuples(r); ++i) {
      // Rows come by channel, oldest first: the last names the inhibitor.
      std::string key = TextAt(r, i, 0);
      const uint64_t generation = UintAt(r, i, 1);
      std::string channel = TextAt(r, i, 2);
      if (out.empty() || out.back().key != key || out.back().generation != generation ||
          out.back().channel != channel) {
        out.push_back(core::HeldChannel{std::move(key), generation, std::move(channel), ""});
      }
      out.back().held_behind = TextAt(r, i, 3);
    }
    return out;
  }

  core::Result<std::vector<core::Incident>> LoadOpenIncidentsOf(
      std::span<const std::string> conditions) override {
    if (conditions.empty()) return std::vector<core::Incident>{};
    ArrayBuilder names;
    for (const std::string& condition : conditions) names.Text(condition);
    // The status literal matches incidents_open's predicate, so the planner may read it.
    static const std::string sql = std::string("SELECT ") + kIncidentColumns +
                                   " FROM incidents WHERE condition = ANY($1::text[]) AND"
                                   " status = 'open' ORDER BY key COLLATE \"C\"";
    auto result = c_.Run(sql, {names.Finish()});
    if (!result) return result.error();
    return ReadIncidents(result->get());
  }

  core::Result<uint64_t> CancelTierOpens(
      std::span<const std::pair<std::string, uint64_t>> generations, core::WallTime now) override {
    if (generations.empty()) return uint64_t{0};
    ArrayBuilder keys;
    ArrayBuilder numbers;
    for (const auto& [key, generation] : generations) {
      keys.Text(key);
      numbers.Uint(generation);
    }
    // Nothing waits in any tier (no escalation configured, or every tier paged): skip the
    // updates; outbox_tier_waiting answers from its first entry.
    auto waiting = c_.Run(
        "SELECT 1 FROM outbox WHERE tier > 0 AND (status = 'pending' OR (status = 'grouped' AND"
        " group_row IS NULL)) LIMIT 1");
    if (!waiting) return waiting.error();
    if (PQntuples(waiting->get()) == 0) return uint64_t{0};
    // First a follow-up waiting in a tier's group whose open waits there too, then the opens.
    static const std::string follow_ups_sql =
        "UPDATE outbox o SET status = 'cancelled', updated_at = $3 FROM unnest($1::text[],"
        " $2::bigint[]) AS u(key, generation) WHERE o.key = u.key AND"
        " o.generation = u.generation AND o.tier > 0 AND o.transition <> 'open' AND"
        " o.status = 'grouped' AND o.group_row IS NULL AND EXISTS (SELECT 1 FROM outbox t"
        " WHERE t.key = o.key AND t.generation = o.generation AND t.channel = o.channel AND"
        " t.transition = 'open' AND (t.status = 'pending' OR (t.status = 'grouped' AND"
        " t.group_row IS NULL)))";
    static const std::string sql =
        "UPDATE outbox o SET status = 'cancelled', updated_at = $3 FROM unnest($1::text[],"
        " $2::bigint[]) AS u(key, generation) WHERE o.key = u.key AND"
        " o.generation = u.generation AND o.tier > 0 AND o.transition = 'open' AND"
        " (o.status = 'pending' OR (o.status = 'grouped' AND o.group_row IS NULL))";
    const std::string key_array = keys.Finish();
    const std::string generation_array = numbers.Finish();
    const std::string now_us = std::to_string(store::ToMicros(now));
    uint64_t cancelled = 0;
    for (const std::string* statement : {&follow_ups_sql, &sql}) {
      auto result = c_.Run(*statement, {key_array, generation_array, now_us});
      if (!result) return result.error();
      cancelled += Affected(result->get());
    }
    return cancelled;
  }

  Status InsertOutbox(std::span<const core::OutboxRow> rows) override {
    if (rows.empty()) return {};
    std::vector<ArrayBuilder> cols(19);
    for (const core::OutboxRow& row : rows) {
      cols[0].Text(row.idempotency_key);
      cols[1].Text(row.key);
      cols[2].Uint(row.generation);
      cols[3].Uint(row.version);
      cols[4].Text(core::TransitionName(row.transition));
      cols[5].Text(row.channel);
      cols[6].Text(row.payload);
      cols[7].Text(core::OutboxStatusName(row.status));
      cols[8].Uint(row.attempts);
      cols[9].Int(store::ToMicros(row.next_attempt_at));
      cols[10].Text(row.lease_owner);
      cols[11].Time(row.lease_expires_at);
      cols[12].Text(row.last_error);
      cols[13].Text(row.remote_message_id);
      cols[14].Int(store::ToMicros(row.created_at));
      cols[15].Int(store::ToMicros(row.updated_at));
      cols[16].Text(core::OutboxRowKindName(row.kind));
      cols[17].Text(row.group_key);
      cols[18].Uint(row.tier);
    }
    std::vector<std::string> params;
    params.reserve(cols.size() + 1);
    for (ArrayBuilder& c : cols) params.push_back(c.Finish());
    // A row older than one already sent for its incident and channel goes in superseded. The
    // row comparison lets the unique index range over the newer rows alone, not every row the
    // key ever had on the channel.
    static const std::string sql =
        std::string("INSERT INTO outbox (") + kOutboxColumns +
        ", group_key, tier) SELECT u.idempotency_key, u.key, u.generation, u.version, "
        "u.transition, "
        "u.channel,"
        " u.payload, CASE WHEN EXISTS (SELECT 1 FROM outbox o WHERE o.key = u.key AND"
        " o.channel = u.channel AND o.status = 'sent' AND (o.generation, o.version) >"
        " (u.generation, u.version)) THEN 'superseded' ELSE"
        " u.status END, u.attempts, u.next_attempt_at, u.lease_owner, u.lease_expires_at,"
        " u.last_error, u.remote_message_id, u.created_at, u.updated_at, u.kind,"
        " NULLIF(u.group_key, ''), u.tier FROM unnest($1::text[],"
        " $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[],"
        " $8::text[], $9::bigint[], $10::bigint[], $11::text[], $12::bigint[], $13::text[],"
        " $14::text[], $15::bigint[], $16::bigint[], $17::text[], $18::text[], $19::bigint[])"
        " AS u(" +
        kOutboxColumns + ", group_key, tier) ON CONFLICT DO NOTHING";
    auto result = c_.Run(sql, params);
    if (!result) return result.error();
    return {};
  }

  core::Result<bool> RecordPoll(const core::PollRecord& poll) override {
    std::vector<std::string> params = {
        poll.poll_id, std::to_string(store::ToMicros(poll.applied_at)),
        std::to_string(poll.observations), std::to_string(poll.changed),
        std::to_string(poll.outbox_rows)};
    for (uint64_t n : poll.by_decision) params.push_back(std::to_string(n));
    static const std::string sql =
        "INSERT INTO polls (poll_id, applied_at, observations, changed, outbox_rows, n_notify,"
        " n_update_only, n_wait_for_health, n_resolve, n_ignore, n_unknown, n_stale)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING";
    auto result = c_.Run(sql, params);
    if (!result) return result.error();
    return Affected(result->get()) == 1;
  }

  core::Result<uint64_t> PruneDecisions(core::WallTime cutoff) override {
    const std::string at = std::to_string(store::ToMicros(cutoff));
    auto result = c_.Run(std::string("DELETE FROM decisions WHERE at < $1"), {at});
    if (!result) return result.error();
    const uint64_t pruned = Affected(result->get());
    for (const char* rest : {"DELETE FROM observation_marks WHERE at < $1",
                             "DELETE FROM delivery_attempts WHERE at < $1"}) {
      if (auto done = c_.Run(std::string(rest), {at}); !done) return done.error();
    }
    return pruned;
  }

  core::Result<uint64_t> PruneKeyGroups(core::WallTime cutoff) override {
    auto result = c_.Run(std::string("DELETE FROM key_groups WHERE last_seen_at < $1"),
                         {std::to_string(store::ToMicros(cutoff))});
    if (!result) return result.error();
    return Affected(result->get());
  }

  Status PutSourceMark(std::string_view name, std::string_view value, core::WallTime now) override {
    static const std::string sql =
        "INSERT INTO source_marks (name, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT"
        " (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at";
    auto result =
        c_.Run(sql, {std::string(name), std::string(value), std::to_string(store::ToMicros(now))});
    if (!result) return result.error();
    return {};
  }

  Status RecordKeyGroups(std::span<const core::KeyGroup> seen, core::WallTime now) override {
    // `seen` is unique, so no row is upserted twice in one statement (which PostgreSQL refuses).
    static const std::string sql = std::string(kInsertKeyGroups) +
                                   " DO UPDATE SET last_seen_at = excluded.last_seen_at,"
                                   " polls = key_groups.polls + 1";
    return WriteKeyGroups(sql, seen, now);
  }

  Status RecordNewKeyGroups(std::span<const core::KeyGroup> seen, core::WallTime now) override {
    static const std::string sql = std::string(kInsertKeyGroups) + " DO NOTHING";
    return WriteKeyGroups(sql, seen, now);
  }

  core::Result<bool> AdmitToBudget(std::string_view tenant, std::string_view channel,
                                   core::WallTime window_start, uint32_t per_hour) override {
    // The upsert locks the window's row, so concurrent writers each take the next number.
    static const std::string sql =
        "INSERT INTO budget_windows (tenant, channel, window_start, seen) VALUES ($1, $2, $3, 1)"
        " ON CONFLICT (tenant, channel, window_start) DO UPDATE SET"
        " seen = budget_windows.seen + 1 RETURNING seen";
    auto result = c_.Run(sql, {std::string(tenant), std::string(channel),
                               std::to_string(store::ToMicros(window_start))});
    if (!result) return result.error();
    if (PQntuples(result->get()) != 1) {
      return core::MakeError(core::ErrorCode::kInternal, "budget upsert returned no row");
    }
    return std::stoll(PQgetvalue(result->get(), 0, 0)) <= static_cast<int64_t>(per_hour);
  }

  core::Result<std::vector<core::Silence>> LoadActiveSilences(core::WallTime now) override {
    return ReadSilences(c_, now);
  }

  // The UPDATE locks the lease row until this transaction ends: a takeover's Acquire waits for
  // this commit, and a takeover committed first makes the token stale here.
  Status FencePoll(std::string_view lease, uint64_t token, core::WallTime at) override {
    static const std::string sql =
        "UPDATE poll_leases SET polled_at = $3 WHERE name = $1 AND token = $2";
    auto result = c_.Run(
        sql, {std::string(lease), std::to_string(token), std::to_string(store::ToMicros(at))});
    if (!result) return result.error();
    if (Affected(result->get()) == 1) return {};
    auto exists =
        c_.Run(std::string("SELECT 1 FROM poll_leases WHERE name = $1"), {std::string(lease)});
    if (!exists) return exists.error();
    return MakeError(ErrorCode::kConflict,
                     store::FencedMessage(lease, token, PQntuples(exists->get()) > 0));
  }

  core::Result<bool> RememberCallbackEvent(std::string_view provider, std::string_view id,
                                           core::WallTime now, core::WallTime expires_at) override {
    auto pruned = c_.Run(std::string("DELETE FROM callback_events WHERE expires_at <= $1"),
                         {std::to_string(store::ToMicros(now))});
    if (!pruned) return pruned.error();
    // A twin inserted by a transaction still open makes this one wait for its end: committed,
    // nothing is inserted here; rolled back, this one inserts.
    static const std::string sql =
        "INSERT INTO callback_events (provider, event_id, expires_at) VALUES ($1, $2, $3)"
        " ON CONFLICT DO NOTHING";
    auto result = c_.Run(
        sql, {std::string(provider), std::string(id), std::to_string(store::ToMicros(expires_at))});
    if (!result) return result.error();
    return Affected(result->get()) == 1;
  }

  Status Commit() override {
    auto result = c_.Run("COMMIT");
    done_ = true;  // a failed COMMIT has ended the transaction too
    if (!result) return result.error();
    return {};
  }

 private:
  // One row per (key, group) of `seen`, inserted through `sql`: kInsertKeyGroups and what a
  // conflict does.
  Status WriteKeyGroups(const std::string& sql, std::span<const core::KeyGroup> seen,
                        core::WallTime now) {
    if (seen.empty()) return {};
    ArrayBuilder keys;
    ArrayBuilder groups;
    for (const core::KeyGroup& kg : seen) {
      keys.Text(kg.key);
      groups.Text(kg.group_id);
    }
    auto result =
        c_.Run(sql, {keys.Finish(), groups.Finish(), std::to_string(store::ToMicros(now))});
    if (!result) return result.error();
    return {};
  }

  Connection& c_;
  bool has_savepoint_ = false;
  bool done_ = false;
};

// "host:port/dbname" from a connection string, never its password.
std::string Describe(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options == nullptr) {
    PQfreemem(error);
    return "(unparsable URL)";
  }
  std::string host = "localhost", port = "5432", db;
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (std::strcmp(o->keyword, "host") == 0 || std::strcmp(o->keyword, "hostaddr") == 0) {
      host = o->val;
    }
    if (std::strcmp(o->keyword, "port") == 0) port = o->val;
    if (std::strcmp(o->keyword, "dbname") == 0) db = o->val;
  }
  PQconninfoFree(options);
  return host + ":" + port + (db.empty() ? "" : "/" + db);
}

void IgnoreNotice(void*, const char*) {}

}  // namespace

PgIncidentStore::PgIncidentStore(std::unique_ptr<Connection> connection)
    : connection_(std::move(connection)) {}
PgIncidentStore::~PgIncidentStore() = default;

void PgIncidentStore::RecordStatements(StatementLog* log) { connection_->RecordInto(log); }

core::Result<std::unique_ptr<PgIncidentStore>> PgIncidentStore::Open(const std::string& url) {
  const std::string where = Describe(url);
  char* parse_error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(url.c_str(), &parse_error);
  if (parsed == nullptr) {
    std::string message = FirstLine(parse_error);
    PQfreemem(parse_error);
    return MakeError(ErrorCode::kInvalidArgument, "invalid PostgreSQL URL: " + message);
  }
  PQconninfoFree(parsed);
  // A connect (and every reconnect, which reuses these settings) gives up after 10 s unless
  // the URL says otherwise: the URL is expanded after this default, so its own value wins. An
  // unanswered reconnect must not hold the poll loop forever.
  const char* const keywords[] = {"connect_timeout", "dbname", nullptr};
  const char* const values[] = {"10", url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    std::string message = conn != nullptr ? FirstLine(PQerrorMessage(conn)) : "out of memory";
    PQfinish(conn);
    return MakeError(ErrorCode::kUnavailable,
                     "cannot connect to PostgreSQL at " + where + ": " + message);
  }
  PQsetNoticeProcessor(conn, IgnoreNotice, nullptr);
  std::unique_ptr<PgIncidentStore> store(
      new PgIncidentStore(std::make_unique<Connection>(conn, where)));
  if (auto status = store->Migrate(); !status) return status.error();
  return store;
}

Status PgIncidentStore::Migrate() {
  Connection& c = *connection_;
  auto run = [&c](const std::string& sql) -> Status {
    auto result = c.RunScript(sql.c_str());
    if (!result) return result.error();
    return {};
  };
  if (auto status = run("BEGIN"); !status) return status;
  auto fail = [&](core::Error error) -> Status {
    (void)c.Run("ROLLBACK");
    return error;
  };
  if (auto status = run("SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLock) + ")");
      !status) {
    return fail(status.error());
  }
  auto probe = c.Run(
      "SELECT to_regclass('schema_migrations') IS NOT NULL, to_regclass('incidents') IS NOT NULL");
  if (!probe) return fail(probe.error());
  const bool has_migrations = PQgetvalue(probe->get(), 0, 0)[0] == 't';
  const bool has_incidents = PQgetvalue(probe->get(), 0, 1)[0] == 't';
  if (!has_migrations && has_incidents) {
    return fail(MakeError(
        ErrorCode::kCorrupt,
        "not a quell database: " + c.where() + " has an incidents table but no schema_migrations"));
  }
  if (!has_migrations) {
    if (auto status = run("CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY,"
                          " name TEXT NOT NULL, applied_at BIGINT NOT NULL)");
        !status) {
      return fail(status.error());
    }
  }
  auto current = c.Run("SELECT coalesce(max(version), 0) FROM schema_migrations");
  if (!current) return fail(current.error());
  const int64_t have = ParseInt(PQgetvalue(current->get(), 0, 0));
  const auto migrations = store::Migrations();
  if (have > migrations.back().version) {
    return fail(
        MakeError(ErrorCode::kCorrupt, "database " + c.where() + " has schema version " +
                                           std::to_string(have) + ", newer than this quell (" +
                                           std::to_string(migrations.back().version) + ")"));
  }
  for (const store::Migration& m : migrations) {
    if (m.version <= have) continue;
    if (auto status = run(m.postgres_sql); !status) return fail(status.error());
    auto recorded = c.Run(
        std::string("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2,"
                    " (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)"),
        {std::to_string(m.version), m.name});
    if (!recorded) return fail(recorded.error());
  }
  return run("COMMIT");
}

core::Result<std::unique_ptr<core::StoreTransaction>> PgIncidentStore::Begin() {
  auto result = connection_->Run("BEGIN");
  if (!result) return result.error();
  return std::unique_ptr<core::StoreTransaction>(new PgTransaction(*connection_));
}

core::Result<std::vector<core::Incident>> PgIncidentStore::ListIncidents() {
  static const std::string sql =
      std::string("SELECT ") + kIncidentColumns + " FROM incidents ORDER BY key COLLATE \"C\"";
  auto result = connection_->Run(sql.c_str());
  if (!result) return result.error();
  return ReadIncidents(result->get());
}

core::Result<std::optional<core::Incident>> PgIncidentStore::FindIncident(std::string_view key) {
  static const std::string sql =
      std::string("SELECT ") + kIncidentColumns + " FROM incidents WHERE key = $1";
  auto result = connection_->Run(sql, {std::string(key)});
  if (!result) return result.error();
  if (PQntuples(result->get()) == 0) return std::optional<core::Incident>();
  auto incident = ReadIncident(result->get(), 0);
  if (!incident) return incident.error();
  return std::optional<core::Incident>(std::move(*incident));
}

core::Result<std::vector<std::string>> PgIncidentStore::ListWatchedKeysAfter(
    std::string_view condition, std::string_view after, size_t limit) {
  // ListOpenIncidents' keys, each index read from the key after the previous slice's; the
  // indexes hold (condition, key), so the sweep can be answered from them alone.
  static const std::string sql =
      "SELECT key FROM (SELECT key FROM incidents WHERE condition = $1 AND status = 'open' AND"
      " key COLLATE \"C\" > $2 UNION ALL SELECT key FROM incidents WHERE condition = $1 AND"
      " held = 1 AND status <> 'open' AND key COLLATE \"C\" > $2 UNION ALL SELECT key FROM"
      " incidents WHERE condition = $1 AND unhealthy_streak > 0 AND held = 0 AND"
      " status <> 'open' AND key COLLATE \"C\" > $2) AS watched ORDER BY key COLLATE \"C\""
      " LIMIT $3";
  auto result =
      connection_->Run(sql, {std::string(condition), std::string(after), std::to_string(limit)});
  if (!result) return result.error();
  PGresult* rows = result->get();
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(PQntuples(rows)));
  for (int r = 0; r < PQntuples(rows); ++r) {
    out.emplace_back(PQgetvalue(rows, r, 0), static_cast<size_t>(PQgetlength(rows, r, 0)));
  }
  return out;
}

core::Status PgIncidentStore::FindIncidents(std::span<const std::string> keys,
                                            std::vector<core::Incident>& out) {
  if (keys.empty()) return {};
  // One round trip for the lot, as a transaction's LoadIncidents, without its row locks.
  ArrayBuilder array;
  for (const std::string& key : keys) array.Text(key);
  static const std::string sql = std::string("SELECT ") + kIncidentColumns +
                                 " FROM incidents WHERE key = ANY($1::text[])"
                                 " ORDER BY key COLLATE \"C\"";
  auto result = connection_->Run(sql, {array.Finish()});
  if (!result) return result.error();
  auto incidents = ReadIncidents(result->get());
  if (!incidents) return incidents.error();
  for (core::Incident& incident : *incidents) out.push_back(std::move(incident));
  return {};
}

core::Result<std::vector<core::Incident>> PgIncidentStore::ListOpenIncidents(
    std::string_view condition) {
  // The literals and COLLATE "C" match the open, held and pending indexes' predicates and key
  // order, so the planner can read both indexes in order and merge them instead of sorting.
  static const std::string sql =
      std::string("SELECT * FROM (SELECT ") + kIncidentColumns +
      " FROM incidents WHERE condition = $1 AND status = 'open' UNION ALL SELECT " +
      kIncidentColumns +
      " FROM incidents WHERE condition = $1 AND held = 1 AND status <> 'open' UNION ALL SELECT " +
      kIncidentColumns +
      " FROM incidents WHERE condition = $1 AND unhealthy_streak > 0 AND held = 0 AND"
      " status <> 'open') AS watched"
      " ORDER BY key COLLATE \"C\"";
  auto result = connection_->Run(sql, {std::string(condition)});
  if (!result) return result.error();
  return ReadIncidents(result->get());
}

core::Result<std::vector<core::OutboxRow>> PgIncidentStore::ListOutbox(
    std::optional<core::OutboxStatus> status) {
  std::string sql = std::string("SELECT ") + kOutboxColumns + ", tier FROM outbox";
  std::vector<std::string> params;
  if (status) {
    sql += " WHERE status = $1";
    params.emplace_back(core::OutboxStatusName(*status));
  }
  sql += " ORDER BY key COLLATE \"C\", channel COLLATE \"C\", generation, version";
  auto result = connection_->Run(sql, params);
  if (!result) return result.error();
  std::vector<core::OutboxRow> out;
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    auto row = ReadOutboxRow(result->get(), i);
    if (!row) return row.error();
    row->tier = static_cast<uint32_t>(UintAt(result->get(), i, kOutboxColumnCount));
    out.push_back(std::move(*row));
  }
  return out;
}

Status PgIncidentStore::MarkSent(std::string_view idempotency_key,
                                 std::string_view remote_message_id, core::WallTime now) {
  // One statement: mark the row sent and supersede the older pending rows of its incident and
  // channel, atomically.
  static const std::string sql =
      "WITH s AS (UPDATE outbox SET status = 'sent', remote_message_id = $2, updated_at = $3,"
      " lease_owner = '', lease_expires_at = NULL WHERE idempotency_key = $1"
      " RETURNING key, channel, generation, version),"
      " x AS (UPDATE outbox o SET status = 'superseded', updated_at = $3 FROM s"
      " WHERE o.key = s.key AND o.channel = s.channel AND o.status = 'pending' AND"
      " (o.generation < s.generation OR (o.generation = s.generation AND o.version < s.version))"
      " RETURNING 1) SELECT count(*) FROM s";
  auto result = connection_->Run(sql, {std::string(idempotency_key), std::string(remote_message_id),
                                       std::to_string(store::ToMicros(now))});
  if (!result) return result.error();
  if (ParseInt(PQgetvalue(result->get(), 0, 0)) == 0) {
    return MakeError(ErrorCode::kNotFound, "no outbox row " + std::string(idempotency_key));
  }
  return {};
}

core::Result<std::optional<std::string>> PgIncidentStore::GetSourceMark(std::string_view name) {
  auto result = connection_->Run(std::string("SELECT value FROM source_marks WHERE name = $1"),
                                 {std::string(name)});
  if (!result) return result.error();
  if (PQntuples(result->get()) == 0) return std::optional<std::string>();
  return std::optional<std::string>(TextAt(result->get(), 0, 0));
}

core::Result<uint64_t> PgIncidentStore::CountDecisions() {
  auto result = connection_->Run("SELECT count(*) FROM decisions");
  if (!result) return result.error();
  return UintAt(result->get(), 0, 0);
}

core::Result<uint64_t> PgIncidentStore::CountPolls() {
  auto result = connection_->Run("SELECT count(*) FROM polls");
  if (!result) return result.error();
  return UintAt(result->get(), 0, 0);
}

core::Result<std::array<uint64_t, 7>> PgIncidentStore::CountDecisionsSince(core::WallTime since) {
  auto result = connection_->Run(
      std::string("SELECT decision, count(*) FROM decisions WHERE at >= $1 GROUP BY 1"),
      {std::to_string(store::ToMicros(since))});
  if (!result) return result.error();
  std::array<uint64_t, 7> counts{};
  const PGresult* r = result->get();
  for (int i = 0; i < PQntuples(r); ++i) {
    const std::string name = TextAt(r, i, 0);
    if (!core::AddDecisionCount(counts, name, UintAt(r, i, 1))) {
      return MakeError(ErrorCode::kCorrupt, "decisions: unknown decision " + name);
    }
  }
  // A quiet sighting is an update_only the log leaves out; each poll's row counts it.
  auto polls = connection_->Run(
      std::string("SELECT coalesce(sum(n_update_only), 0) FROM polls WHERE applied_at >= $1"),
      {std::to_string(store::ToMicros(since))});
  if (!polls) return polls.error();
  counts[static_cast<size_t>(core::DecisionKind::kUpdateOnly)] = UintAt(polls->get(), 0, 0);
  return counts;
}

core::Result<std::vector<core::KeyGroupRow>> PgIncidentStore::KeyGroupsSince(core::WallTime since) {
  auto result = connection_->Run(
      std::string("SELECT key, group_id, first_seen_at, last_seen_at, polls FROM key_groups"
                  " WHERE last_seen_at >= $1 ORDER BY key COLLATE \"C\", group_id COLLATE \"C\""),
      {std::to_string(store::ToMicros(since))});
  if (!result) return result.error();
  const PGresult* r = result->get();
  std::vector<core::KeyGroupRow> rows;
  rows.reserve(static_cast<size_t>(PQntuples(r)));
  for (int i = 0; i < PQntuples(r); ++i) {
    rows.push_back(core::KeyGroupRow{
        TextAt(r, i, 0), TextAt(r, i, 1), store::FromMicros(ParseInt(PQgetvalue(r, i, 2))),
        store::FromMicros(ParseInt(PQgetvalue(r, i, 3))), UintAt(r, i, 4)});
  }
  return rows;
}

core::Result<core::IncidentPage> PgIncidentStore::ListIncidentPage(
    const core::IncidentPageQuery& query) {
  const store::IncidentPageSql sql =
      store::BuildIncidentPageSql(query, store::SqlDialect::kPostgres, kIncidentColumns);
  core::IncidentPage page;
  auto counted = connection_->Run(sql.count, sql.params);
  if (!counted) return counted.error();
  page.total = UintAt(counted->get(), 0, 0);
  auto result = connection_->Run(sql.page, sql.params);
  if (!result) return result.error();
  const PGresult* r = result->get();
  const int columns = kIncidentColumnCount;
  for (int i = 0; i < PQntuples(r); ++i) {
    auto incident = ReadIncident(r, i);
    if (!incident) return incident.error();
    page.incidents.push_back(core::ListedIncident{std::move(*incident), TextAt(r, i, columns),
                                                  UintAt(r, i, columns + 1)});
  }
  return page;
}

}  // namespace quell::postgres
