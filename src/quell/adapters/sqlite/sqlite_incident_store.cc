#include "quell/adapters/sqlite/sqlite_incident_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>
#include <utility>

#include "quell/adapters/sqlite/sqlite_batch_statement.h"
#include "quell/adapters/sqlite/sqlite_statement.h"
#include "quell/adapters/store_common/incident_codec.h"
#include "quell/adapters/store_common/lease_rules.h"
#include "quell/adapters/store_common/schema.h"
#include "quell/core/conditions/shadow_report.h"

namespace quell::sqlite {
namespace {

using core::ErrorCode;
using core::MakeError;
using core::Status;

std::optional<uint64_t> OptionalUint(const Stmt& s, int col) {
  const std::optional<core::WallTime> raw = s.Time(col);  // NULL or a BIGINT, read as micros
  if (!raw) return std::nullopt;
  return static_cast<uint64_t>(store::ToMicros(*raw));
}

void BindOptionalUint(Stmt& s, int i, std::optional<uint64_t> v) {
  s.BindTime(i, v ? std::optional<core::WallTime>(store::FromMicros(static_cast<int64_t>(*v)))
                  : std::nullopt);
}

}  // namespace

core::Result<core::Incident> ReadIncident(const Stmt& s) {
  core::Incident in;
  in.key = s.Text(0);
  in.condition = s.Text(1);
  in.generation = s.Uint(2);
  auto status = store::ParseIncidentStatus(s.Text(3));
  if (!status) return status.error();
  in.status = *status;
  in.version = s.Uint(4);
  in.opened_at = s.Time(5);
  in.first_seen_at = s.Time(6);
  in.last_seen_at = s.Time(7);
  in.last_observed_at = s.Time(8);
  in.last_notified_at = s.Time(9);
  in.resolved_at = s.Time(10);
  in.healthy_streak = static_cast<uint32_t>(s.Uint(11));
  in.event_count = s.Uint(12);
  in.renotify_count = static_cast<uint32_t>(s.Uint(13));
  in.flap_history =
      core::FlapHistory(static_cast<uint32_t>(s.Uint(14)), static_cast<uint32_t>(s.Uint(15)));
  in.flapping = s.Int(16) != 0;
  in.acked_at = s.Time(17);
  in.acked_by = s.Text(18);
  auto evidence = store::DecodeEvidence(s.Text(19));
  if (!evidence) return evidence.error();
  in.recent_evidence = std::move(*evidence);
  in.held = s.Int(20) != 0;
  in.held_until = s.Time(21);
  auto labels = store::DecodeLabels(s.Text(22));
  if (!labels) return labels.error();
  in.labels = std::move(*labels);
  in.unhealthy_streak = static_cast<uint32_t>(s.Uint(23));
  in.upstream_count = OptionalUint(s, 24);
  in.upstream_count_at_message = OptionalUint(s, 25);
  in.upstream_count_since_previous_message = OptionalUint(s, 26);
  // Stored as the BIGINT with the same bits.
  if (!s.IsNull(27)) in.evidence_fingerprint = static_cast<uint64_t>(s.Int(27));
  return in;
}

namespace {

// Every incident row `s` (bound already) returns, in its order; resets `s`.
core::Result<std::vector<core::Incident>> ReadAll(Stmt& s) {
  std::vector<core::Incident> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    auto incident = ReadIncident(s);
    if (!incident) {
      s.Reset();
      return incident.error();
    }
    out.push_back(std::move(*incident));
  }
  s.Reset();
  return out;
}

// Binds an incident's 28 columns starting at parameter `first`; the texts live in `evidence`
// and `labels` until the statement runs.
void BindIncident(Stmt& s, int first, const core::Incident& in, std::string& evidence,
                  std::string& labels) {
  evidence = store::EncodeEvidence(in.recent_evidence);
  labels = store::EncodeLabels(in.labels);
  s.BindText(first, in.key);
  s.BindText(first + 1, in.condition);
  s.BindUint(first + 2, in.generation);
  s.BindText(first + 3, core::IncidentStatusName(in.status));
  s.BindUint(first + 4, in.version);
  s.BindTime(first + 5, in.opened_at);
  s.BindTime(first + 6, in.first_seen_at);
  s.BindTime(first + 7, in.last_seen_at);
  s.BindTime(first + 8, in.last_observed_at);
  s.BindTime(first + 9, in.last_notified_at);
  s.BindTime(first + 10, in.resolved_at);
  s.BindUint(first + 11, in.healthy_streak);
  s.BindUint(first + 12, in.event_count);
  s.BindUint(first + 13, in.renotify_count);
  s.BindUint(first + 14, in.flap_history.bits());
  s.BindUint(first + 15, in.flap_history.count());
  s.BindInt(first + 16, in.flapping ? 1 : 0);
  s.BindTime(first + 17, in.acked_at);
  s.BindText(first + 18, in.acked_by);
  s.BindText(first + 19, evidence);
  s.BindInt(first + 20, in.held ? 1 : 0);
  s.BindTime(first + 21, in.held_until);
  s.BindText(first + 22, labels);
  s.BindUint(first + 23, in.unhealthy_streak);
  BindOptionalUint(s, first + 24, in.upstream_count);
  BindOptionalUint(s, first + 25, in.upstream_count_at_message);
  BindOptionalUint(s, first + 26, in.upstream_count_since_previous_message);
  if (in.evidence_fingerprint) {
    s.BindInt(first + 27, static_cast<int64_t>(*in.evidence_fingerprint));
  } else {
    s.BindTime(first + 27, std::nullopt);
  }
}

// FindIncidents' statement for `rows` keys (?1 .. ?rows), through the primary key.
std::string FindManySql(size_t rows) {
  std::string sql = std::string("SELECT ") + kIncidentColumns + " FROM incidents WHERE key IN (";
  for (size_t r = 1; r <= rows; ++r) {
    if (r > 1) sql += ',';
    sql += '?';
    sql += std::to_string(r);
  }
  return sql + ") ORDER BY key";
}

// A batch of (key, group) pairs seen at ?1, groups of (?2k, ?2k+1): the upsert that counts a
// poll of each pair, or the insert that leaves a known pair alone.
std::string KeyGroupValues(size_t rows) {
  std::string sql =
      "INSERT INTO key_groups (key, group_id, first_seen_at, last_seen_at, polls)"
      " VALUES ";
  for (size_t r = 0; r < rows; ++r) {
    if (r > 0) sql += ',';
    sql += "(?" + std::to_string(2 + 2 * r) + ",?" + std::to_string(3 + 2 * r) + ",?1,?1,1)";
  }
  return sql;
}
std::string RecordKeyGroupsSql(size_t rows) {
  return KeyGroupValues(rows) +
         " ON CONFLICT (key, group_id) DO UPDATE SET last_seen_at = excluded.last_seen_at,"
         " polls = polls + 1";
}
std::string RecordNewKeyGroupsSql(size_t rows) {
  return KeyGroupValues(rows) + " ON CONFLICT (key, group_id) DO NOTHING";
}

// LoadVersions' statement for `rows` keys: the version only, no incident decoded.
std::string VersionsSql(size_t rows) {
  std::string sql = "SELECT key, version FROM incidents WHERE key IN (";
  for (size_t r = 1; r <= rows; ++r) {
    if (r > 1) sql += ',';
    sql += '?';
    sql += std::to_string(r);
  }
  return sql + ") ORDER BY key";
}

}  // namespace

struct SqliteIncidentStore::Statements {
  Stmt begin, commit, rollback, savepoint, release, rollback_to;
  Stmt load, insert_incident, update_incident;
  Stmt insert_decision, newer_sent, insert_outbox, insert_poll, prune, put_mark, admit;
  Stmt insert_observation_mark, prune_observation_marks, prune_attempts;
  Stmt list_incidents, find_incident, list_open, list_watched_after, list_outbox,
      list_outbox_status;
  BatchStatement find_many{FindManySql};
  BatchStatement versions{VersionsSql};
  BatchStatement record_key_groups{RecordKeyGroupsSql};
  BatchStatement record_new_key_groups{RecordNewKeyGroupsSql};
  Stmt find_outbox, mark_sent, supersede, get_mark;
  Stmt prune_key_groups, decisions_since, update_only_since, key_groups_since;
  Stmt never_live, heard, inhibited_rows, open_of, cancel_tier_opens, cancel_tier_follow_ups;
  Stmt tier_waiting;
  Stmt fence_poll, lease_exists;
  Stmt prune_callbacks, remember_callback;
};

// One BEGIN IMMEDIATE transaction: it holds the database's write lock from the start, so no
// other writer can change a row between LoadIncidents and PutIncidents.
class SqliteTransaction : public core::StoreTransaction {
 public:
  explicit SqliteTransaction(SqliteIncidentStore& store) : store_(store), s_(*store.statements_) {}
  ~SqliteTransaction() override {
    if (!done_) (void)s_.rollback.Run();
  }

  Status LoadIncidents(std::span<const std::string> keys,
                       std::vector<core::Incident>& out) override {
    for (const std::string& key : keys) {
      s_.load.BindText(1, key);
      auto stepped = s_.load.Step();
      if (!stepped) return stepped.error();
      if (*stepped) {
        auto incident = ReadIncident(s_.load);
        if (!incident) {
          s_.load.Reset();
          return incident.error();
        }
        out.push_back(std::move(*incident));
      }
      s_.load.Reset();
    }
    return {};
  }

  Status LoadVersions(std::span<const std::string> keys,
                      std::vector<std::pair<std::string, uint64_t>>& out) override {
    for (size_t done = 0; done < keys.size();) {
      size_t rows = 0;
      auto stmt = s_.versions.For(keys.size() - done, store_.db_, store_.path_, &rows);
      if (!stmt) return stmt.error();
      Stmt& s = **stmt;
      for (size_t r = 0; r < rows; ++r) s.BindText(static_cast<int>(r + 1), keys[done + r]);
      for (;;) {
        auto row = s.Step();
        if (!row) {
          s.Reset();
          return row.error();
        }
        if (!*row) break;
        out.emplace_back(s.Text(0), static_cast<uint64_t>(s.Int(1)));
      }
      s.Reset();
      done += rows;
    }
    return {};
  }

  Status Savepoint() override {
    if (has_savepoint_) {
      if (auto status = s_.release.Run(); !status) return status;
    }
    if (auto status = s_.savepoint.Run(); !status) return status;
    has_savepoint_ = true;
    return {};
  }

  Status RollbackToSavepoint() override {
    if (!has_savepoint_) return MakeError(ErrorCode::kInternal, "no savepoint to roll back to");
    return s_.rollback_to.Run();
  }

  Status PutIncidents(std::span<const core::IncidentWrite> writes) override {
    for (const core::IncidentWrite& w : writes) {
      if (w.expected_version == 0) {
        BindIncident(s_.insert_incident, 1, w.incident, evidence_, labels_);
        if (auto status = s_.insert_incident.Run(); !status) return status;
      } else {
        BindIncident(s_.update_incident, 1, w.incident, evidence_, labels_);
        s_.update_incident.BindUint(kIncidentColumnCount + 1, w.expected_version);
        if (auto status = s_.update_incident.Run(); !status) return status;
        if (sqlite3_changes(store_.db_) != 1) {
          return MakeError(ErrorCode::kConflict,
                           "incident " + w.incident.key + " changed under this transaction");
        }
      }
    }
    return {};
  }

  Status AppendDecisions(std::string_view poll_id,
                         std::span<const core::DecisionRecord> decisions) override {
    for (const core::DecisionRecord& d : decisions) {
      Stmt& s = s_.insert_decision;
      s.BindText(1, d.key);
      s.BindUint(2, d.version);
      s.BindUint(3, d.generation);
      s.BindText(4, poll_id);
      s.BindInt(5, store::ToMicros(d.at));
      s.BindText(6, core::DecisionName(d.kind));
      s.BindText(7, core::ReasonName(d.reason));
      if (auto status = s.Run(); !status) return status;
    }
    return {};
  }

  Status AddObservationMarks(std::span<const core::ObservationMark> marks) override {
    for (const core::ObservationMark& m : marks) {
      Stmt& s = s_.insert_observation_mark;
      s.BindText(1, m.key);
      s.BindText(2, m.poll_id);
      s.BindInt(3, store::ToMicros(m.at));
      s.BindUint(4, m.generation);
      s.BindText(5, core::HealthName(m.health));
      s.BindText(6, core::DecisionName(m.decision));
      if (auto status = s.Run(); !status) return status;
    }
    return {};
  }

  core::Result<std::vector<core::GenerationChannel>> NeverLiveChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) override {
    std::vector<core::GenerationChannel> out;
    for (const auto& [key, generation] : generations) {
      Stmt& s = s_.never_live;
      s.BindText(1, key);
      s.BindUint(2, generation);
      for (;;) {
        auto row = s.Step();
        if (!row) return row.error();
        if (!*row) break;
        out.push_back(core::GenerationChannel{key, generation, s.Text(0)});
      }
      s.Reset();
    }
    return out;
  }

  core::Result<std::vector<core::GenerationChannel>> HeardChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) override {
    std::vector<core::GenerationChannel> out;
    for (const auto& [key, generation] : generations) {
      Stmt& s = s_.heard;
      s.BindText(1, key);
      s.BindUint(2, generation);
      for (;;) {
        auto row = s.Step();
        if (!row) return row.error();
        if (!*row) break;
        out.push_back(core::GenerationChannel{key, generation, s.Text(0)});
      }
      s.Reset();
    }
    return out;
  }

  core::Result<std::vector<core::HeldChannel>> InhibitedChannels(
      std::span<const std::pair<std::string, uint64_t>> generations) override {
    std::vector<core::HeldChannel> out;
    for (const auto& [key, generation] : generations) {
      Stmt& s = s_.inhibited_rows;
      s.BindText(1, key);
      s.BindUint(2, generation);
      for (;;) {
        auto row = s.Step();
        if (!row) return row.error();
        if (!*row) break;
        // Rows come by channel, oldest first: the last names the inhibitor.
        std::string channel = s.Text(0);
        if (out.empty() || out.back().key != key || out.back().generation != generation ||
            out.back().channel != channel) {
          out.push_back(core::HeldChannel{key, generation, std::move(channel), ""});
        }
        out.back().held_behind = s.Text(1);
      }
      s.Reset();
    }
    return out;
  }

  core::Result<std::vector<core::Incident>> LoadOpenIncidentsOf(
      std::span<const std::string> conditions) override {
    std::vector<core::Incident> out;
    for (const std::string& condition : conditions) {
      Stmt& s = s_.open_of;
      s.BindText(1, condition);
      auto some = ReadAll(s);
      if (!some) return some.error();
      out.insert(out.end(), std::make_move_iterator(some->begin()),
                 std::make_move_iterator(some->end()));
    }
    std::sort(out.begin(), out.end(),
              [](const core::Incident& a, const core::Incident& b) { return a.key < b.key; });
    return out;
  }

  core::Result<uint64_t> CancelTierOpens(
      std::span<const std::pair<std::string, uint64_t>> generations, core::WallTime now) override {
    if (generations.empty()) return uint64_t{0};
    // Nothing waits in any tier (no escalation configured, or every tier paged): skip the
    // per-generation updates; outbox_tier_waiting answers from its first entry.
    auto waiting = s_.tier_waiting.Step();
    s_.tier_waiting.Reset();
    if (!waiting) return waiting.error();
    if (!*waiting) return uint64_t{0};
    uint64_t cancelled = 0;
    for (const auto& [key, generation] : generations) {
      for (Stmt* s : {&s_.cancel_tier_follow_ups, &s_.cancel_tier_opens}) {
        s->BindText(1, key);
        s->BindUint(2, generation);
        s->BindInt(3, store::ToMicros(now));
        if (auto run = s->Run(); !run) return run.error();
        cancelled += static_cast<uint64_t>(sqlite3_changes(store_.db_));
      }
    }
    return cancelled;
  }

  Status InsertOutbox(std::span<const core::OutboxRow> rows) override {
    for (const core::OutboxRow& row : rows) {
      Stmt& n = s_.newer_sent;
      n.BindText(1, row.key);
      n.BindText(2, row.channel);
      n.BindUint(3, row.generation);
      n.BindUint(4, row.version);
      auto newer = n.Step();
      n.Reset();
      if (!newer) return newer.error();
      const core::OutboxStatus status = *newer ? core::OutboxStatus::kSuperseded : row.status;

      Stmt& s = s_.insert_outbox;
      s.BindText(1, row.idempotency_key);
      s.BindText(2, row.key);
      s.BindUint(3, row.generation);
      s.BindUint(4, row.version);
      s.BindText(5, core::TransitionName(row.transition));
      s.BindText(6, row.channel);
      s.BindText(7, row.payload);
      s.BindText(8, core::OutboxStatusName(status));
      s.BindUint(9, row.attempts);
      s.BindInt(10, store::ToMicros(row.next_attempt_at));
      s.BindText(11, row.lease_owner);
      s.BindTime(12, row.lease_expires_at);
      s.BindText(13, row.last_error);
      s.BindText(14, row.remote_message_id);
      s.BindInt(15, store::ToMicros(row.created_at));
      s.BindInt(16, store::ToMicros(row.updated_at));
      s.BindText(17, core::OutboxRowKindName(row.kind));
      s.BindTextOrNull(18, row.group_key);
      s.BindUint(19, row.tier);
      if (auto run = s.Run(); !run) return run;
    }
    return {};
  }

  core::Result<bool> RecordPoll(const core::PollRecord& poll) override {
    Stmt& s = s_.insert_poll;
    s.BindText(1, poll.poll_id);
    s.BindInt(2, store::ToMicros(poll.applied_at));
    s.BindUint(3, poll.observations);
    s.BindUint(4, poll.changed);
    s.BindUint(5, poll.outbox_rows);
    for (size_t i = 0; i < poll.by_decision.size(); ++i) {
      s.BindUint(6 + static_cast<int>(i), poll.by_decision[i]);
    }
    if (auto status = s.Run(); !status) return status.error();
    return sqlite3_changes(store_.db_) == 1;
  }

  core::Result<uint64_t> PruneDecisions(core::WallTime cutoff) override {
    s_.prune.BindInt(1, store::ToMicros(cutoff));
    if (auto status = s_.prune.Run(); !status) return status.error();
    const auto pruned = static_cast<uint64_t>(sqlite3_changes64(store_.db_));
    for (Stmt* rest : {&s_.prune_observation_marks, &s_.prune_attempts}) {
      rest->BindInt(1, store::ToMicros(cutoff));
      if (auto status = rest->Run(); !status) return status.error();
    }
    return pruned;
  }

  core::Result<uint64_t> PruneKeyGroups(core::WallTime cutoff) override {
    s_.prune_key_groups.BindInt(1, store::ToMicros(cutoff));
    if (auto status = s_.prune_key_groups.Run(); !status) return status.error();
    return static_cast<uint64_t>(sqlite3_changes64(store_.db_));
  }

  Status PutSourceMark(std::string_view name, std::string_view value, core::WallTime now) override {
    s_.put_mark.BindText(1, name);
    s_.put_mark.BindText(2, value);
    s_.put_mark.BindInt(3, store::ToMicros(now));
    return s_.put_mark.Run();
  }

  Status RecordKeyGroups(std::span<const core::KeyGroup> seen, core::WallTime now) override {
    return WriteKeyGroups(s_.record_key_groups, seen, now);
  }

  Status RecordNewKeyGroups(std::span<const core::KeyGroup> seen, core::WallTime now) override {
    return WriteKeyGroups(s_.record_new_key_groups, seen, now);
  }

  // Up to BatchStatement::kMaxRows pairs a statement through `batch`: the upsert, or the insert
  // that leaves a known pair alone. SQLite applies a statement's rows in order, so a pair named
  // twice counts as twice, as it did one statement a pair.
  Status WriteKeyGroups(BatchStatement& batch, std::span<const core::KeyGroup> seen,
                        core::WallTime now) {
    const int64_t at = store::ToMicros(now);
    for (size_t done = 0; done < seen.size();) {
      size_t rows = 0;
      auto stmt = batch.For(seen.size() - done, store_.db_, store_.path_, &rows);
      if (!stmt) return stmt.error();
      Stmt& s = **stmt;
      s.BindInt(1, at);
      for (size_t r = 0; r < rows; ++r) {
        s.BindText(static_cast<int>(2 + 2 * r), seen[done + r].key);
        s.BindText(static_cast<int>(3 + 2 * r), seen[done + r].group_id);
      }
      if (auto status = s.Run(); !status) return status;
      done += rows;
    }
    return {};
  }

  core::Result<bool> AdmitToBudget(std::string_view tenant, std::string_view channel,
                                   core::WallTime window_start, uint32_t per_hour) override {
    Stmt& s = s_.admit;
    s.BindText(1, tenant);
    s.BindText(2, channel);
    s.BindInt(3, store::ToMicros(window_start));
    auto row = s.Step();
    if (!row) return row.error();
    const int64_t seen = *row ? s.Int(0) : 0;
    s.Reset();
    return seen <= static_cast<int64_t>(per_hour);
  }

  core::Result<std::vector<core::Silence>> LoadActiveSilences(core::WallTime now) override {
    return ReadSilences(store_.db_, store_.path_, now);
  }

  // The write lock this transaction holds since BEGIN IMMEDIATE is the row lock PostgreSQL
  // takes: an Acquire in another process waits for this commit.
  Status FencePoll(std::string_view lease, uint64_t token, core::WallTime at) override {
    s_.fence_poll.BindText(1, lease);
    s_.fence_poll.BindUint(2, token);
    s_.fence_poll.BindInt(3, store::ToMicros(at));
    if (auto status = s_.fence_poll.Run(); !status) return status;
    if (sqlite3_changes(store_.db_) == 1) return {};
    s_.lease_exists.BindText(1, lease);
    auto row = s_.lease_exists.Step();
    s_.lease_exists.Reset();
    if (!row) return row.error();
    return MakeError(ErrorCode::kConflict, store::FencedMessage(lease, token, *row));
  }

  core::Result<bool> RememberCallbackEvent(std::string_view provider, std::string_view id,
                                           core::WallTime now, core::WallTime expires_at) override {
    s_.prune_callbacks.BindInt(1, store::ToMicros(now));
    if (auto status = s_.prune_callbacks.Run(); !status) return status.error();
    Stmt& s = s_.remember_callback;
    s.BindText(1, provider);
    s.BindText(2, id);
    s.BindInt(3, store::ToMicros(expires_at));
    if (auto status = s.Run(); !status) return status.error();
    return sqlite3_changes(store_.db_) == 1;
  }

  Status Commit() override {
    if (auto status = s_.commit.Run(); !status) return status;
    done_ = true;
    return {};
  }

 private:
  SqliteIncidentStore& store_;
  SqliteIncidentStore::Statements& s_;
  std::string evidence_;
  std::string labels_;
  bool has_savepoint_ = false;
  bool done_ = false;
};

SqliteIncidentStore::SqliteIncidentStore(std::string path, sqlite3* db)
    : path_(std::move(path)), db_(db), statements_(std::make_unique<Statements>()) {}

SqliteIncidentStore::~SqliteIncidentStore() {
  statements_.reset();  // finalize before close
  outbox_.reset();
  leases_.reset();
  sqlite3_close_v2(db_);
}

void SqliteIncidentStore::RecordStatements(std::set<std::string>* texts) {
  if (texts == nullptr) {
    sqlite3_trace_v2(db_, 0, nullptr, nullptr);
    return;
  }
  for (sqlite3_stmt* s = sqlite3_next_stmt(db_, nullptr); s != nullptr;
       s = sqlite3_next_stmt(db_, s)) {
    texts->insert(sqlite3_sql(s));
  }
  // SQLITE_TRACE_STMT fires as each statement starts; P is the statement, whose sqlite3_sql is
  // the text as prepared (parameters unexpanded).
  sqlite3_trace_v2(
      db_, SQLITE_TRACE_STMT,
      [](unsigned /*type*/, void* sink, void* statement, void* /*text*/) {
        static_cast<std::set<std::string>*>(sink)->insert(
            sqlite3_sql(static_cast<sqlite3_stmt*>(statement)));
        return 0;
      },
      texts);
}

core::Result<std::unique_ptr<SqliteIncidentStore>> SqliteIncidentStore::Open(
    const std::string& path, SqliteOptions options) {
  std::error_code ec;
  if (!options.create && !std::filesystem::exists(path, ec)) {
    return MakeError(ErrorCode::kNotFound,
                     "no store at " + std::filesystem::absolute(path, ec).string() +
                         " (a relative sqlite: path is taken from the working directory)");
  }
  sqlite3* db = nullptr;
  // Without SQLITE_OPEN_CREATE a file removed since the check above is an error, not a new store.
  const int rc = sqlite3_open_v2(
      path.c_str(), &db,
      SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX,
      nullptr);
  if (rc != SQLITE_OK) {
    core::Error error = SqlError(db, rc, path);
    sqlite3_close_v2(db);
    return error;
  }
  std::unique_ptr<SqliteIncidentStore> store(new SqliteIncidentStore(path, db));
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, static_cast<int>(options.busy_timeout.count()));
  if (sqlite3_db_readonly(db, "main") == 1) {
    return MakeError(ErrorCode::kPermissionDenied, "database is read-only: " + path);
  }
  // WAL lets readers run beside the one writer; synchronous=NORMAL is durable against a crashed
  // process (the kill -9 case) and loses at most the last commits on power loss, never integrity.
  auto set_up = [&]() -> Status {
    if (auto status = Exec(db, "PRAGMA journal_mode=WAL", path); !status) return status;
    if (auto status = Exec(db, "PRAGMA synchronous=NORMAL", path); !status) return status;
    // 64 MiB of page cache keeps a million-key poll's b-tree pages in memory, well inside the
    // 300 MB budget.
    if (auto status = Exec(db, "PRAGMA cache_size=-65536", path); !status) return status;
    return store->Migrate();
  };
  // Writers that open a new file together race to switch it to WAL; SQLite answers some of
  // those lock requests with SQLITE_BUSY at once, without consulting the busy handler (where
  // waiting could deadlock). So the set-up is retried, with jitter, up to the busy timeout.
  const auto deadline = std::chrono::steady_clock::now() + options.busy_timeout;
  std::minstd_rand jitter(static_cast<unsigned>(::getpid()));
  for (;;) {
    Status status = set_up();
    if (status) break;
    if (status.error().code != ErrorCode::kUnavailable ||
        std::chrono::steady_clock::now() >= deadline) {
      return status.error();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{5 + jitter() % 20});
  }

  Statements& s = *store->statements_;
  const std::string cols = kIncidentColumns;
  const std::string ocols = kOutboxColumns;
  const std::string q28 = "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?";
  const std::pair<Stmt*, std::string> sql[] = {
      {&s.begin, "BEGIN IMMEDIATE"},
      {&s.commit, "COMMIT"},
      {&s.rollback, "ROLLBACK"},
      {&s.savepoint, "SAVEPOINT chunk"},
      {&s.release, "RELEASE chunk"},
      {&s.rollback_to, "ROLLBACK TO chunk"},
      {&s.load, "SELECT " + cols + " FROM incidents WHERE key = ?"},
      {&s.insert_incident, "INSERT INTO incidents (" + cols + ") VALUES (" + q28 + ")"},
      {&s.update_incident,
       "UPDATE incidents SET (" + cols + ") = (" + q28 + ") WHERE key = ?1 AND version = ?29"},
      {&s.insert_decision,
       "INSERT INTO decisions (key, version, generation, poll_id, at, decision, reason)"
       " VALUES (?,?,?,?,?,?,?) ON CONFLICT DO NOTHING"},
      {&s.admit,
       "INSERT INTO budget_windows (tenant, channel, window_start, seen) VALUES (?1, ?2, ?3, 1)"
       " ON CONFLICT (tenant, channel, window_start) DO UPDATE SET seen = seen + 1"
       " RETURNING seen"},
      {&s.newer_sent,
       "SELECT 1 FROM outbox WHERE key = ?1 AND channel = ?2 AND status = 'sent' AND"
       " (generation > ?3 OR (generation = ?3 AND version > ?4)) LIMIT 1"},
      {&s.insert_outbox, "INSERT INTO outbox (" + ocols +
                             ", group_key, tier) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                             " ON CONFLICT DO NOTHING"},
      // The outbox's unique (key, channel, generation, version) index serves it, by key. A
      // silenced open counts as told (the next transition sends normally); a silenced
      // follow-up of an open never sent does not make it sent.
      {&s.never_live,
       "SELECT channel FROM outbox WHERE key = ?1 AND generation = ?2 GROUP BY channel"
       " HAVING min(status IN ('shadow', 'muted', 'cancelled', 'inhibited') OR"
       " (status = 'silenced' AND transition <> 'open')) = 1 ORDER BY channel"},
      {&s.heard,
       "SELECT DISTINCT channel FROM outbox WHERE key = ?1 AND generation = ?2 AND status IN"
       " ('pending', 'in_flight', 'grouped', 'sent', 'folded') ORDER BY channel"},
      {&s.inhibited_rows,
       "SELECT channel, last_error FROM outbox WHERE key = ?1 AND generation = ?2"
       " AND status = 'inhibited' ORDER BY channel, created_at, version"},
      {&s.open_of, "SELECT " + cols +
                       " FROM incidents INDEXED BY incidents_open WHERE condition = ?1 AND"
                       " status = 'open' ORDER BY key"},
      // The tier rows still waiting, by outbox_tier_waiting, whose predicate each of these
      // three repeats word for word so SQLite can use it. Named, because SQLite (no statistics)
      // would otherwise pick outbox_due for the status terms and read every pending row.
      {&s.tier_waiting,
       "SELECT 1 FROM outbox INDEXED BY outbox_tier_waiting WHERE tier > 0 AND (status ="
       " 'pending' OR (status = 'grouped' AND group_row IS NULL)) LIMIT 1"},
      {&s.cancel_tier_opens,
       "UPDATE outbox SET status = 'cancelled', updated_at = ?3 WHERE key = ?1 AND"
       " generation = ?2 AND tier > 0 AND transition = 'open' AND (status = 'pending' OR"
       " (status = 'grouped' AND group_row IS NULL))"},
      // Run first: a follow-up waiting in a tier's group whose open waits there too.
      {&s.cancel_tier_follow_ups,
       "UPDATE outbox SET status = 'cancelled', updated_at = ?3 WHERE key = ?1 AND"
       " generation = ?2 AND tier > 0 AND transition <> 'open' AND (status = 'pending' OR"
       " (status = 'grouped' AND group_row IS NULL)) AND status = 'grouped' AND"
       " group_row IS NULL AND EXISTS (SELECT 1 FROM outbox o WHERE o.key = ?1 AND"
       " o.generation = ?2 AND o.channel = outbox.channel AND o.transition = 'open' AND"
       " (o.status = 'pending' OR (o.status = 'grouped' AND o.group_row IS NULL)))"},
      {&s.insert_poll,
       "INSERT INTO polls (poll_id, applied_at, observations, changed, outbox_rows, n_notify,"
       " n_update_only, n_wait_for_health, n_resolve, n_ignore, n_unknown, n_stale)"
       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING"},
      {&s.prune, "DELETE FROM decisions WHERE at < ?"},
      {&s.insert_observation_mark,
       "INSERT INTO observation_marks (key, poll_id, at, generation, health, decision)"
       " VALUES (?,?,?,?,?,?) ON CONFLICT DO NOTHING"},
      {&s.prune_observation_marks, "DELETE FROM observation_marks WHERE at < ?"},
      {&s.prune_attempts, "DELETE FROM delivery_attempts WHERE at < ?"},
      {&s.fence_poll, "UPDATE poll_leases SET polled_at = ?3 WHERE name = ?1 AND token = ?2"},
      {&s.lease_exists, "SELECT 1 FROM poll_leases WHERE name = ?"},
      {&s.prune_callbacks, "DELETE FROM callback_events WHERE expires_at <= ?1"},
      {&s.remember_callback,
       "INSERT INTO callback_events (provider, event_id, expires_at) VALUES (?1, ?2, ?3)"
       " ON CONFLICT DO NOTHING"},
      {&s.prune_key_groups, "DELETE FROM key_groups WHERE last_seen_at < ?"},
      {&s.put_mark,
       "INSERT INTO source_marks (name, value, updated_at) VALUES (?,?,?) ON CONFLICT (name)"
       " DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at"},
      {&s.list_incidents, "SELECT " + cols + " FROM incidents ORDER BY key"},
      {&s.find_incident, "SELECT " + cols + " FROM incidents WHERE key = ?"},
      // The status literal (not a parameter) lets SQLite prove the partial index applies.
      {&s.list_open, "SELECT " + cols +
                         " FROM incidents INDEXED BY incidents_open WHERE condition = ?1 AND"
                         " status = 'open' UNION ALL SELECT " +
                         cols +
                         " FROM incidents INDEXED BY incidents_held WHERE condition = ?1 AND"
                         " held = 1 AND status <> 'open' UNION ALL SELECT " +
                         cols +
                         " FROM incidents INDEXED BY incidents_pending WHERE condition = ?1 AND"
                         " unhealthy_streak > 0 AND held = 0 AND status <> 'open' ORDER BY key"},
      // list_open's keys a slice at a time: each index read from the key after the last
      // slice's. Each index holds (condition, key), so no incident row is read.
      {&s.list_watched_after,
       "SELECT key FROM incidents INDEXED BY incidents_open WHERE condition = ?1 AND"
       " status = 'open' AND key > ?2 UNION ALL SELECT key FROM incidents INDEXED BY"
       " incidents_held WHERE condition = ?1 AND held = 1 AND status <> 'open' AND key > ?2"
       " UNION ALL SELECT key FROM incidents INDEXED BY incidents_pending WHERE condition = ?1"
       " AND unhealthy_streak > 0 AND held = 0 AND status <> 'open' AND key > ?2 ORDER BY key"
       " LIMIT ?3"},
      {&s.list_outbox,
       "SELECT " + ocols + ", tier FROM outbox ORDER BY key, channel, generation, version"},
      {&s.list_outbox_status, "SELECT " + ocols +
                                  ", tier FROM outbox WHERE status = ?"
                                  " ORDER BY key, channel, generation, version"},
      {&s.find_outbox,
       "SELECT key, channel, generation, version FROM outbox WHERE idempotency_key = ?"},
      {&s.mark_sent,
       "UPDATE outbox SET status = 'sent', remote_message_id = ?2, updated_at = ?3,"
       " lease_owner = '', lease_expires_at = NULL WHERE idempotency_key = ?1"},
      // Through outbox_live, as RecordOutcomes' supersede: the key's live rows, not its history.
      {&s.supersede,
       "UPDATE outbox INDEXED BY outbox_live SET status = 'superseded', updated_at = ?5 WHERE"
       " key = ?1 AND channel = ?2 AND status IN ('pending', 'in_flight') AND status = 'pending'"
       " AND (generation < ?3 OR (generation = ?3 AND version < ?4))"},
      {&s.get_mark, "SELECT value FROM source_marks WHERE name = ?"},
      {&s.decisions_since, "SELECT decision, count(*) FROM decisions WHERE at >= ? GROUP BY 1"},
      {&s.update_only_since,
       "SELECT coalesce(sum(n_update_only), 0) FROM polls WHERE applied_at >= ?"},
      {&s.key_groups_since,
       "SELECT key, group_id, first_seen_at, last_seen_at, polls FROM key_groups"
       " WHERE last_seen_at >= ? ORDER BY key, group_id"},
  };
  for (const auto& [stmt, text] : sql) {
    if (auto status = stmt->Prepare(db, text, store->path_); !status) return status.error();
  }
  if (auto status = store->PrepareOutbox(); !status) return status.error();
  return store;
}

Status SqliteIncidentStore::Migrate() {
  if (auto status = Exec(db_, "BEGIN IMMEDIATE", path_); !status) return status;
  auto fail = [this](core::Error error) -> Status {
    (void)Exec(db_, "ROLLBACK", path_);
    return error;
  };
  Stmt probe;
  if (auto status = probe.Prepare(db_,
                                  "SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                                  " AND name = 'schema_migrations'), (SELECT count(*) FROM"
                                  " sqlite_master WHERE type = 'table')",
                                  path_);
      !status) {
    return fail(status.error());
  }
  auto row = probe.Step();
  if (!row) return fail(row.error());
  const bool has_migrations = probe.Int(0) == 1;
  const int64_t tables = probe.Int(1);
  probe.Reset();
  if (!has_migrations && tables > 0) {
    return fail(MakeError(ErrorCode::kCorrupt, "not a quell database or corrupt: " + path_));
  }
  if (!has_migrations) {
    if (auto status = Exec(db_,
                           "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY,"
                           " name TEXT NOT NULL, applied_at BIGINT NOT NULL)",
                           path_);
        !status) {
      return fail(status.error());
    }
  }
  Stmt current;
  if (auto status =
          current.Prepare(db_, "SELECT coalesce(max(version), 0) FROM schema_migrations", path_);
      !status) {
    return fail(status.error());
  }
  auto stepped = current.Step();
  if (!stepped) return fail(stepped.error());
  const int64_t have = current.Int(0);
  current.Reset();
  const auto migrations = store::Migrations();
  if (have > migrations.back().version) {
    return fail(
        MakeError(ErrorCode::kCorrupt, "database " + path_ + " has schema version " +
                                           std::to_string(have) + ", newer than this quell (" +
                                           std::to_string(migrations.back().version) + ")"));
  }
  for (const store::Migration& m : migrations) {
    if (m.version <= have) continue;
    if (auto status = Exec(db_, m.sqlite_sql, path_); !status) return fail(status.error());
    Stmt record;
    if (auto status = record.Prepare(db_,
                                     "INSERT INTO schema_migrations (version, name, applied_at)"
                                     " VALUES (?, ?, CAST((julianday('now') - 2440587.5) *"
                                     " 86400000000 AS INTEGER))",
                                     path_);
        !status) {
      return fail(status.error());
    }
    record.BindInt(1, m.version);
    record.BindText(2, m.name);
    if (auto status = record.Run(); !status) return fail(status.error());
  }
  return Exec(db_, "COMMIT", path_);
}

core::Result<std::unique_ptr<core::StoreTransaction>> SqliteIncidentStore::Begin() {
  if (auto status = statements_->begin.Run(); !status) return status.error();
  return std::unique_ptr<core::StoreTransaction>(new SqliteTransaction(*this));
}

core::Result<std::vector<core::Incident>> SqliteIncidentStore::ListIncidents() {
  return ReadAll(statements_->list_incidents);
}

core::Result<std::vector<core::Incident>> SqliteIncidentStore::ListOpenIncidents(
    std::string_view condition) {
  Stmt& s = statements_->list_open;
  s.BindText(1, condition);
  return ReadAll(s);
}

core::Result<std::vector<std::string>> SqliteIncidentStore::ListWatchedKeysAfter(
    std::string_view condition, std::string_view after, size_t limit) {
  Stmt& s = statements_->list_watched_after;
  s.BindText(1, condition);
  s.BindText(2, after);
  s.BindUint(3, limit);
  std::vector<std::string> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(s.Text(0));
  }
  s.Reset();
  return out;
}

core::Status SqliteIncidentStore::FindIncidents(std::span<const std::string> keys,
                                                std::vector<core::Incident>& out) {
  // Up to BatchStatement::kMaxRows keys a statement: outside a transaction each statement
  // takes and drops its own read lock, which costs more than reading a row.
  for (size_t done = 0; done < keys.size();) {
    size_t rows = 0;
    auto stmt = statements_->find_many.For(keys.size() - done, db_, path_, &rows);
    if (!stmt) return stmt.error();
    Stmt& s = **stmt;
    for (size_t r = 0; r < rows; ++r) s.BindText(static_cast<int>(r + 1), keys[done + r]);
    auto some = ReadAll(s);
    if (!some) return some.error();
    for (core::Incident& incident : *some) out.push_back(std::move(incident));
    done += rows;
  }
  return {};
}

core::Result<std::optional<std::string>> SqliteIncidentStore::GetSourceMark(std::string_view name) {
  Stmt& s = statements_->get_mark;
  s.BindText(1, name);
  auto row = s.Step();
  if (!row) return row.error();
  std::optional<std::string> out;
  if (*row) out = s.Text(0);
  s.Reset();
  return out;
}

core::Result<std::optional<core::Incident>> SqliteIncidentStore::FindIncident(
    std::string_view key) {
  Stmt& s = statements_->find_incident;
  s.BindText(1, key);
  auto row = s.Step();
  if (!row) return row.error();
  std::optional<core::Incident> out;
  if (*row) {
    auto incident = ReadIncident(s);
    if (!incident) {
      s.Reset();
      return incident.error();
    }
    out = std::move(*incident);
  }
  s.Reset();
  return out;
}

core::Result<std::vector<core::OutboxRow>> SqliteIncidentStore::ListOutbox(
    std::optional<core::OutboxStatus> status) {
  Stmt& s = status ? statements_->list_outbox_status : statements_->list_outbox;
  if (status) s.BindText(1, core::OutboxStatusName(*status));
  std::vector<core::OutboxRow> out;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    auto parsed = ReadOutboxRow(s);
    if (!parsed) {
      s.Reset();
      return parsed.error();
    }
    parsed->tier = static_cast<uint32_t>(s.Uint(kOutboxColumnCount));
    out.push_back(std::move(*parsed));
  }
  s.Reset();
  return out;
}

Status SqliteIncidentStore::MarkSent(std::string_view idempotency_key,
                                     std::string_view remote_message_id, core::WallTime now) {
  Statements& s = *statements_;
  if (auto status = s.begin.Run(); !status) return status;
  auto fail = [&s](core::Error error) -> Status {
    (void)s.rollback.Run();
    return error;
  };
  s.find_outbox.BindText(1, idempotency_key);
  auto row = s.find_outbox.Step();
  if (!row) return fail(row.error());
  if (!*row) {
    s.find_outbox.Reset();
    return fail(MakeError(ErrorCode::kNotFound, "no outbox row " + std::string(idempotency_key)));
  }
  const std::string key = s.find_outbox.Text(0);
  const std::string channel = s.find_outbox.Text(1);
  const int64_t generation = s.find_outbox.Int(2);
  const int64_t version = s.find_outbox.Int(3);
  s.find_outbox.Reset();

  s.mark_sent.BindText(1, idempotency_key);
  s.mark_sent.BindText(2, remote_message_id);
  s.mark_sent.BindInt(3, store::ToMicros(now));
  if (auto status = s.mark_sent.Run(); !status) return fail(status.error());
  s.supersede.BindText(1, key);
  s.supersede.BindText(2, channel);
  s.supersede.BindInt(3, generation);
  s.supersede.BindInt(4, version);
  s.supersede.BindInt(5, store::ToMicros(now));
  if (auto status = s.supersede.Run(); !status) return fail(status.error());
  if (auto status = s.commit.Run(); !status) return fail(status.error());
  return {};
}

core::Result<uint64_t> SqliteIncidentStore::Count(const char* sql) {
  Stmt s;
  if (auto status = s.Prepare(db_, sql, path_); !status) return status.error();
  auto row = s.Step();
  if (!row) return row.error();
  return s.Uint(0);
}

core::Result<uint64_t> SqliteIncidentStore::CountDecisions() {
  return Count("SELECT count(*) FROM decisions");
}
core::Result<uint64_t> SqliteIncidentStore::CountPolls() {
  return Count("SELECT count(*) FROM polls");
}

core::Result<std::array<uint64_t, 7>> SqliteIncidentStore::CountDecisionsSince(
    core::WallTime since) {
  Stmt& s = statements_->decisions_since;
  s.BindInt(1, store::ToMicros(since));
  std::array<uint64_t, 7> counts{};
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    const std::string name = s.Text(0);
    if (!core::AddDecisionCount(counts, name, s.Uint(1))) {
      s.Reset();
      return MakeError(ErrorCode::kCorrupt, path_ + ": decisions: unknown decision " + name);
    }
  }
  s.Reset();
  // A quiet sighting is an update_only the log leaves out; each poll's row counts it.
  Stmt& polls = statements_->update_only_since;
  polls.BindInt(1, store::ToMicros(since));
  auto row = polls.Step();
  if (!row) return row.error();
  counts[static_cast<size_t>(core::DecisionKind::kUpdateOnly)] = *row ? polls.Uint(0) : 0;
  polls.Reset();
  return counts;
}

core::Result<std::vector<core::KeyGroupRow>> SqliteIncidentStore::KeyGroupsSince(
    core::WallTime since) {
  Stmt& s = statements_->key_groups_since;
  s.BindInt(1, store::ToMicros(since));
  std::vector<core::KeyGroupRow> rows;
  for (;;) {
    auto row = s.Step();
    if (!row) return row.error();
    if (!*row) break;
    rows.push_back(core::KeyGroupRow{s.Text(0), s.Text(1), store::FromMicros(s.Int(2)),
                                     store::FromMicros(s.Int(3)), s.Uint(4)});
  }
  s.Reset();
  return rows;
}

}  // namespace quell::sqlite
