#pragma once

#include <libpq-fe.h>

#include <charconv>
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
    " updated_at";

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

// One libpq connection and the description of where it points, for error messages.
class PgIncidentStore::Connection {
 public:
  Connection(PGconn* conn, std::string where) : conn_(conn), where_(std::move(where)) {}
  ~Connection() { PQfinish(conn_); }

  const std::string& where() const { return where_; }

  // Runs `sql` with text parameters (nullptr for NULL); expects commands or rows.
  core::Result<PgResult> Run(const char* sql, const std::vector<const char*>& params = {}) {
    PgResult result(PQexecParams(conn_, sql, static_cast<int>(params.size()), nullptr,
                                 params.data(), nullptr, nullptr, 0));
    const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    return Failure(result.get());
  }
  // Runs one or more parameterless statements.
  core::Result<PgResult> RunScript(const char* sql) {
    PgResult result(PQexec(conn_, sql));
    const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    return Failure(result.get());
  }
  core::Result<PgResult> Run(const std::string& sql, const std::vector<std::string>& params) {
    std::vector<const char*> ptrs;
    ptrs.reserve(params.size());
    for (const std::string& p : params) ptrs.push_back(p.c_str());
    return Run(sql.c_str(), ptrs);
  }

 private:
  core::Error Failure(const PGresult* result) {
    if (PQstatus(conn_) == CONNECTION_BAD) {
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
  return row;
}

// The silences by id, only those active at `active_at` when given (pg_operator_store.cc).
core::Result<std::vector<core::Silence>> ReadSilences(Connection& c,
                                                      std::optional<core::WallTime> active_at);

inline uint64_t Affected(const PGresult* r) {
  return static_cast<uint64_t>(ParseInt(PQcmdTuples(const_cast<PGresult*>(r))));
}

}  // namespace quell::postgres
