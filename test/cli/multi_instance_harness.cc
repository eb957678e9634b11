#include "multi_instance_harness.h"

#include <fcntl.h>
#include <libpq-fe.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <memory>
#include <stdexcept>

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace quell::testing {
namespace {

using Conn = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

Rows RunSql(PGconn* conn, const std::string& sql) {
  Result r(PQexec(conn, sql.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(r.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    throw std::runtime_error(sql + ": " + PQresultErrorMessage(r.get()));
  }
  Rows rows;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    auto& row = rows.emplace_back();
    for (int j = 0; j < PQnfields(r.get()); ++j) row.emplace_back(PQgetvalue(r.get(), i, j));
  }
  return rows;
}

Conn Connect(const std::string& url) {
  Conn conn(PQconnectdb(url.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    throw std::runtime_error(std::string("connect: ") + PQerrorMessage(conn.get()));
  }
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  return conn;
}

Rows RunSql(const std::string& url, const std::string& sql) {
  Conn conn = Connect(url);
  return RunSql(conn.get(), sql);
}

}  // namespace

PgSchema::PgSchema(std::string base_url, const std::string& tag) : base_(std::move(base_url)) {
  schema_ = "qmi_" + tag + "_" + std::to_string(getpid());
  RunSql(base_, "DROP SCHEMA IF EXISTS " + schema_ + " CASCADE; CREATE SCHEMA " + schema_);
  url_ = base_ + (base_.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
         schema_;
}

PgSchema::~PgSchema() {
  try {
    RunSql(base_, "DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
  } catch (const std::exception&) {
  }
}

Rows PgSchema::Query(const std::string& sql) const {
  if (!conn_) conn_ = std::shared_ptr<PGconn>(Connect(url_).release(), &PQfinish);
  try {
    return RunSql(conn_.get(), sql);
  } catch (const std::exception&) {
    conn_.reset();
    throw;
  }
}

long long PgSchema::Count(const std::string& sql) const {
  try {
    const Rows rows = Query(sql);
    return rows.empty() || rows[0].empty() ? -1 : std::stoll(rows[0][0]);
  } catch (const std::exception&) {
    return -1;
  }
}

Instance::Instance(std::string name, std::string binary, std::string config,
                   std::filesystem::path dir)
    : name_(std::move(name)),
      binary_(std::move(binary)),
      config_(std::move(config)),
      dir_(std::move(dir)) {}

Instance::~Instance() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::filesystem::path Instance::log() const {
  return dir_ / (name_ + "." + std::to_string(starts_) + ".log");
}

void Instance::Start() {
  ++starts_;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, log().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> argv = {binary_, "run", "-c", config_};
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  paused_ = false;
}

void Instance::Kill9() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
  paused_ = false;
}

bool Instance::Exited() {
  if (pid_ <= 0) return false;
  if (waitpid(pid_, nullptr, WNOHANG) != pid_) return false;
  pid_ = -1;
  return true;
}

void Instance::Pause() {
  if (pid_ > 0 && kill(pid_, SIGSTOP) == 0) paused_ = true;
}

void Instance::Resume() {
  if (pid_ > 0) kill(pid_, SIGCONT);
  paused_ = false;
}

int Instance::Stop() {
  if (pid_ <= 0) return -1;
  Resume();
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

PollClock::PollClock(sim::SimServer& sim) : sim_(sim) {
  thread_ = std::thread([this] {
    int64_t seen = 0;
    for (;;) {
      int64_t polls = 0;
      {
        const std::lock_guard<std::mutex> lock(sim_.state().mu);
        polls = sim_.state().polls;
      }
      const auto now = std::chrono::steady_clock::now();
      {
        const std::lock_guard<std::mutex> lock(mu_);
        if (stop_) return;
        for (; seen < polls; ++seen) polls_.push_back(now);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
}

PollClock::~PollClock() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  thread_.join();
}

std::vector<std::chrono::steady_clock::time_point> PollClock::Polls() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return polls_;
}

}  // namespace quell::testing
