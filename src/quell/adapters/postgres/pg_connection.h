#pragma once

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/store_common/incident_codec.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"

// The libpq plumbing the incident store and the outbox share: the connection, results, array
// parameters and the outbox row's columns. Private to the postgres adapter.
namespace quell::postgres {

using core::ErrorCode;
using core::MakeError;

inline constexpr const char* kOutboxColumns =
    "idempotency_key, key, generation, version, transition, channel, payload, status, attempts,"
    " next_attempt_at, lease_owner, lease_expires_at, last_error, remote_message_id, created_at,"
    " updated_at, kind";
// How many columns kOutboxColumns names: a statement's extra columns come after them.
inline constexpr int kOutboxColumnCount = 17;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

inline std::string FirstLine(const char* text) {
  std::string s = text != nullptr ? text : "";
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

// Builds a PostgreSQL array literal, one column of a batch: {"a","b",NULL} or {1,2,NULL}.
class ArrayBuilder {
 public:
  void Text(std::string_view v) {
    Sep();
    out_ += '"';
    for (char c : v) {
      if (c == '"' || c == '\\') out_ += '\\';
      out_ += c;
    }
    out_ += '"';
  }
  void Int(int64_t v) {
    Sep();
    out_ += std::to_string(v);
  }
  void Uint(uint64_t v) {
    Sep();
    out_ += std::to_string(v);
  }
  void Time(const std::optional<core::WallTime>& t) {
    if (t) {
      Int(store::ToMicros(*t));
    } else {
      Sep();
      out_ += "NULL";
    }
  }
  std::string Finish() {
    out_ += '}';
    std::string done = std::move(out_);
    out_.clear();
    first_ = true;
    return done;
  }

 private:
  void Sep() {
    if (first_) {
      out_ = "{";
      first_ = false;
    } else {
      out_ += ',';
    }
  }
  std::string out_;
  bool first_ = true;
};

inline int64_t ParseInt(const char* text) {
  int64_t v = 0;
  std::from_chars(text, text + std::strlen(text), v);
  return v;
}

// One libpq connection, where it points (for messages) and how it comes back after the server
// restarts or drops it. Every statement of the store goes through Run or RunScript, so this is
// the one place that notices a lost connection and resets it:
//  - Outside a transaction, a statement first looks whether the server closed the connection
//    while it was idle (PQconsumeInput reads the pending EOF) and reconnects before sending.
//  - A reconnect that fails waits before the next try, 100 ms doubling up to 5 s; until then a
//    statement fails at once with kUnavailable saying so. Nothing sleeps: the caller's loop
//    (the poll interval, the dispatcher's backoff) decides when to come back.
//  - Inside a transaction nothing reconnects: statements after the connection was lost would
//    run outside it and commit half of it. They fail with kUnavailable until the transaction
//    ends; ROLLBACK then succeeds (the server rolled it back), COMMIT reports it was not
//    committed, and the caller may run the whole transaction again (app::PollApplier does).
//  - A connection lost during COMMIT leaves the outcome unknown; that is reported as such and
//    never retried here: only the caller knows whether running it again is harmless.
//  - A statement cut outside a transaction is reported, not repeated (it may have run); BEGIN is
//    the exception, it changes nothing, so a BEGIN on a connection found dead is sent again
//    once reconnected.
// No statement is prepared (PQexecParams sends each with its text), so a reset has nothing to
// prepare again; the notice processor belongs to the PGconn and survives PQreset.
class PgIncidentStore::Connection {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;
  static constexpr std::chrono::milliseconds kFirstBackoff{100};
  static constexpr std::chrono::milliseconds kMaxBackoff{5000};

  Connection(PGconn* conn, std::string where) : conn_(conn), where_(std::move(where)) {}
  ~Connection() { PQfinish(conn_); }

  const std::string& where() const { return where_; }
  // Successful reconnects so far, for tests and logs.
  uint64_t reconnects() const { return reconnects_; }

  // Records what runs from now on into `log` (PgIncidentStore::RecordStatements).
  void RecordInto(PgIncidentStore::StatementLog* log) { log_ = log; }

  // Runs `sql` with text parameters (nullptr for NULL); expects commands or rows.
  core::Result<PgResult> Run(const char* sql, const std::vector<const char*>& params = {}) {
    if (log_ != nullptr) Record(sql, params);
    return Execute(sql, [&] {
      return PgResult(PQexecParams(conn_, sql, static_cast<int>(params.size()), nullptr,
                                   params.data(), nullptr, nullptr, 0));
    });
  }
  // Runs one or more parameterless statements.
  core::Result<PgResult> RunScript(const char* sql) {
    if (log_ != nullptr) Record(sql, {});
    return Execute(sql, [&] { return PgResult(PQexec(conn_, sql)); });
  }
  core::Result<PgResult> Run(const std::string& sql, const std::vector<std::string>& params) {
    std::vector<const char*> ptrs;
    ptrs.reserve(params.size());
    for (const std::string& p : params) ptrs.push_back(p.c_str());
    return Run(sql.c_str(), ptrs);
  }

 private:
  enum class Control { kNone, kBegin, kCommit, kRollback };

  void Record(const char* sql, const std::vector<const char*>& params) {
    std::vector<std::optional<std::string>> values;
    values.reserve(params.size());
    for (const char* p : params) {
      values.push_back(p != nullptr ? std::optional<std::string>(p) : std::nullopt);
    }
    log_->emplace(sql, std::move(values));
  }

  static Control ControlOf(const char* sql) {
    if (std::strcmp(sql, "BEGIN") == 0) return Control::kBegin;
    if (std::strcmp(sql, "COMMIT") == 0) return Control::kCommit;
    if (std::strcmp(sql, "ROLLBACK") == 0) return Control::kRollback;
    return Control::kNone;
  }

  template <typename Send>
  core::Result<PgResult> Execute(const char* sql, const Send& send) {
    const Control control = ControlOf(sql);
    if (in_transaction_ && cut_) {
      if (control == Control::kNone) return CutError();
      in_transaction_ = false;
      cut_ = false;
      if (control == Control::kRollback) return PgResult();  // the server rolled it back
      return MakeError(ErrorCode::kUnavailable,
                       "lost the connection to PostgreSQL at " + where_ +
                           " inside a transaction: nothing of it was committed (" + cut_reason_ +
                           ")");
    }
    if (!in_transaction_) {
      if (auto ready = EnsureConnected(); !ready) return ready.error();
    }
    auto result = Check(send());
    if (!result && Lost()) {
      if (control == Control::kBegin && ReconnectNow()) {
        result = Check(send());  // BEGIN had no effect on the dead connection
      }
    }
    if (result) {
      if (control == Control::kBegin) in_transaction_ = true;
      if (control == Control::kCommit || control == Control::kRollback) in_transaction_ = false;
      return result;
    }
    if (!Lost()) {
      if (control == Control::kCommit || control == Control::kRollback) in_transaction_ = false;
      return result;
    }
    // The connection is gone; the next statement outside a transaction reconnects.
    const bool was_in_transaction = in_transaction_;
    in_transaction_ = false;
    if (control == Control::kCommit) {
      return MakeError(ErrorCode::kUnavailable,
                       "lost the connection to PostgreSQL at " + where_ +
                           " during COMMIT: whether the transaction committed is unknown (" +
                           result.error().message + ")");
    }
    if (control == Control::kRollback) return PgResult();
    if (was_in_transaction) {
      in_transaction_ = true;
      cut_ = true;
      cut_reason_ = result.error().message;
    }
    return result.error();
  }

  core::Result<PgResult> Check(PgResult result) {
    const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    return Failure(result.get());
  }

  bool Lost() const { return PQstatus(conn_) == CONNECTION_BAD; }

  core::Error CutError() const {
    return MakeError(ErrorCode::kUnavailable, "lost the connection to PostgreSQL at " + where_ +
                                                  " inside a transaction (" + cut_reason_ + ")");
  }

  // Connected, or kUnavailable: a server that closed the connection while it sat idle is seen
  // here (its EOF is read without blocking) and reconnected to, within the backoff.
  core::Status EnsureConnected() {
    // The first read may only take the server's goodbye (a FATAL message), the second its EOF.
    for (int i = 0; i < 2 && !Lost(); ++i) (void)PQconsumeInput(conn_);
    if (!Lost()) return {};
    const SteadyTime now = std::chrono::steady_clock::now();
    if (now < next_attempt_) {
      const auto wait =
          std::chrono::duration_cast<std::chrono::milliseconds>(next_attempt_ - now).count();
      return MakeError(ErrorCode::kUnavailable, "no connection to PostgreSQL at " + where_ + " (" +
                                                    last_reset_error_ + "); next reconnect in " +
                                                    std::to_string(wait) + " ms");
    }
    if (ReconnectNow()) return {};
    return MakeError(ErrorCode::kUnavailable,
                     "cannot reconnect to PostgreSQL at " + where_ + ": " + last_reset_error_);
  }

  // One reset, now; on failure the next waits the backoff, which doubles up to kMaxBackoff.
  bool ReconnectNow() {
    PQreset(conn_);
    if (!Lost()) {
      ++reconnects_;
      backoff_ = kFirstBackoff;
      next_attempt_ = {};
      return true;
    }
    last_reset_error_ = FirstLine(PQerrorMessage(conn_));
    next_attempt_ = std::chrono::steady_clock::now() + backoff_;
    backoff_ = std::min<std::chrono::milliseconds>(backoff_ * 2, kMaxBackoff);
    return false;
  }

  core::Error Failure(const PGresult* result) {
    if (Lost()) {
      return MakeError(ErrorCode::kUnavailable, "lost the connection to PostgreSQL at " + where_ +
                                                    ": " + FirstLine(PQerrorMessage(conn_)));
    }
    const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    const std::string code = state != nullptr ? state : "";
    const std::string message =
        "PostgreSQL at " + where_ + ": " +
        FirstLine(result ? PQresultErrorMessage(result) : PQerrorMessage(conn_));
    if (code == "40P01" || code == "40001" || code == "23505") {
      return MakeError(ErrorCode::kConflict, message);
    }
    if (code.rfind("08", 0) == 0 || code.rfind("57P", 0) == 0 || code == "53300") {
      return MakeError(ErrorCode::kUnavailable, message);
    }
    if (code == "42501") return MakeError(ErrorCode::kPermissionDenied, message);
    return MakeError(ErrorCode::kInternal, message);
  }

  PGconn* conn_;
  std::string where_;
  bool in_transaction_ = false;
  bool cut_ = false;  // the connection was lost inside the transaction in hand
  std::string cut_reason_;
  std::chrono::milliseconds backoff_ = kFirstBackoff;
  SteadyTime next_attempt_{};
  std::string last_reset_error_;
  uint64_t reconnects_ = 0;
  PgIncidentStore::StatementLog* log_ = nullptr;
};

using Connection = PgIncidentStore::Connection;

inline std::optional<core::WallTime> TimeAt(const PGresult* r, int row, int col) {
  if (PQgetisnull(r, row, col)) return std::nullopt;
  return store::FromMicros(ParseInt(PQgetvalue(r, row, col)));
}
inline uint64_t UintAt(const PGresult* r, int row, int col) {
  return static_cast<uint64_t>(ParseInt(PQgetvalue(r, row, col)));
}
inline std::string TextAt(const PGresult* r, int row, int col) {
  return std::string(PQgetvalue(r, row, col), static_cast<size_t>(PQgetlength(r, row, col)));
}

inline core::Result<core::OutboxRow> ReadOutboxRow(const PGresult* r, int i) {
  core::OutboxRow row;
  row.idempotency_key = TextAt(r, i, 0);
  row.key = TextAt(r, i, 1);
  row.generation = UintAt(r, i, 2);
  row.version = UintAt(r, i, 3);
  auto transition = core::ParseTransitionName(TextAt(r, i, 4));
  if (!transition) return transition.error();
  row.transition = *transition;
  row.channel = TextAt(r, i, 5);
  row.payload = TextAt(r, i, 6);
  auto status = core::ParseOutboxStatus(TextAt(r, i, 7));
  if (!status) return MakeError(ErrorCode::kCorrupt, status.error().message);
  row.status = *status;
  row.attempts = static_cast<uint32_t>(UintAt(r, i, 8));
  row.next_attempt_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 9)));
  row.lease_owner = TextAt(r, i, 10);
  row.lease_expires_at = TimeAt(r, i, 11);
  row.last_error = TextAt(r, i, 12);
  row.remote_message_id = TextAt(r, i, 13);
  row.created_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 14)));
  row.updated_at = store::FromMicros(ParseInt(PQgetvalue(r, i, 15)));
  auto kind = core::ParseOutboxRowKind(TextAt(r, i, 16));
  if (!kind) return kind.error();
  row.kind = *kind;
  return row;
}

// The silences by id, only those active at `active_at` when given (pg_operator_store.cc).
core::Result<std::vector<core::Silence>> ReadSilences(Connection& c,
                                                      std::optional<core::WallTime> active_at);

inline uint64_t Affected(const PGresult* r) {
  return static_cast<uint64_t>(ParseInt(PQcmdTuples(const_cast<PGresult*>(r))));
}

}  // namespace quell::postgres
