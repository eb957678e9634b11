#include "test_support.h"

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"

namespace quell::testing {
namespace {

std::atomic<int> counter{0};

std::string PgBaseUrl() {
  const char* url = std::getenv("QUELL_TEST_PG_URL");
  return url != nullptr ? url : "";
}

std::string PgQuery(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  std::string value;
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  if (PQstatus(conn) == CONNECTION_OK) {
    PGresult* r = PQexec(conn, sql.c_str());
    const ExecStatusType status = PQresultStatus(r);
    if (status == PGRES_TUPLES_OK && PQntuples(r) > 0) value = PQgetvalue(r, 0, 0);
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      std::string message = PQresultErrorMessage(r);
      PQclear(r);
      PQfinish(conn);
      throw std::runtime_error("test query failed: " + sql + ": " + message);
    }
    PQclear(r);
  } else {
    std::string message = PQerrorMessage(conn);
    PQfinish(conn);
    throw std::runtime_error("test connection failed: " + message);
  }
  PQfinish(conn);
  return value;
}

}  // namespace

const char* BackendName(Backend backend) {
  return backend == Backend::kSqlite ? "sqlite" : "postgres";
}

std::string TestStore::Unavailable(Backend backend) {
  if (backend == Backend::kPostgres && PgBaseUrl().empty()) {
    return "QUELL_TEST_PG_URL is not set (scripts/test-pg starts a server and sets it)";
  }
  return "";
}

TestStore::TestStore(Backend backend) : backend_(backend) {
  std::string pattern = (std::filesystem::temp_directory_path() / "quell-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  std::filesystem::permissions(dir_, std::filesystem::perms::all);  // nobody may use it too
  if (backend == Backend::kSqlite) {
    url_ = "sqlite:" + dir_ + "/quell.db";
    return;
  }
  schema_ = "qt_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  const std::string base = PgBaseUrl();
  PgQuery(base, "DROP SCHEMA IF EXISTS " + schema_ + " CASCADE; CREATE SCHEMA " + schema_);
  url_ = base + (base.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
         schema_;
}

TestStore::~TestStore() {
  try {
    if (!schema_.empty()) PgQuery(PgBaseUrl(), "DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
  } catch (const std::exception&) {
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

core::Result<core::Store> TestStore::Open() const {
  if (backend_ == Backend::kSqlite) {
    auto store = sqlite::SqliteIncidentStore::Open(url_.substr(7));
    if (!store) return store.error();
    return core::Store(std::move(*store));
  }
  auto store = postgres::PgIncidentStore::Open(url_);
  if (!store) return store.error();
  return core::Store(std::move(*store));
}

std::string TestStore::Query(const std::string& sql) const {
  if (backend_ == Backend::kPostgres) return PgQuery(url_, sql);
  sqlite3* db = nullptr;
  sqlite3_open(url_.substr(7).c_str(), &db);
  sqlite3_busy_timeout(db, 30000);
  std::string value;
  bool first = true;
  char* error = nullptr;
  struct Out {
    std::string* value;
    bool* first;
  } out{&value, &first};
  const int rc = sqlite3_exec(
      db, sql.c_str(),
      [](void* p, int, char** cols, char**) {
        auto* o = static_cast<Out*>(p);
        if (*o->first && cols[0] != nullptr) *o->value = cols[0];
        *o->first = false;
        return 0;
      },
      &out, &error);
  std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error("test query failed: " + sql + ": " + message);
  return value;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

pid_t StartProcess(const std::vector<std::string>& argv, const std::string& stdin_path,
                   const std::string& out_path, const std::string& err_path,
                   std::optional<uid_t> run_as_uid) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int in = open(stdin_path.empty() ? "/dev/null" : stdin_path.c_str(), O_RDONLY);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (!run_as_uid) {
      execv(args[0], args.data());
      _exit(127);
    }
    // Opened while still root: a build inside a clone under /root (mode 700) is out of the
    // other user's reach by path, but executing the open file needs only the file's own mode.
    const int exe = open(args[0], O_PATH | O_CLOEXEC);
    if (exe < 0) _exit(127);
    if (setgroups(0, nullptr) != 0 || setgid(*run_as_uid) != 0 || setuid(*run_as_uid) != 0) {
      _exit(125);
    }
    fexecve(exe, args.data(), environ);
    _exit(127);
  }
  return pid;
}

ProcessResult WaitProcess(pid_t pid, const std::string& out_path, const std::string& err_path) {
  ProcessResult result;
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  return result;
}

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& stdin_path,
                         const std::string& work_dir, std::optional<uid_t> run_as_uid) {
  const int n = counter++;
  const std::string out = work_dir + "/run" + std::to_string(n) + ".out";
  const std::string err = work_dir + "/run" + std::to_string(n) + ".err";
  return WaitProcess(StartProcess(argv, stdin_path, out, err, run_as_uid), out, err);
}

std::string ObservationLine(const std::string& at, const std::string& key,
                            std::optional<bool> unhealthy, const std::string& evidence) {
  std::string line = "{\"at\":\"" + at + "\",\"key\":\"" + key + "\",\"unhealthy\":";
  line += unhealthy ? (*unhealthy ? "true" : "false") : "null";
  if (!evidence.empty()) line += ",\"evidence\":" + evidence;
  line += "}\n";
  return line;
}

bool InCi() {
  const char* ci = std::getenv("CI");  // NOLINT(concurrency-mt-unsafe): read before threads
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace quell::testing
