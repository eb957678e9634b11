#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quell/app/poll_applier.h"
#include "quell/core/ports/store.h"
#include "test_paths.h"  // QuellBinary(), which the tests run

namespace quell::testing {

// A decision sink for tests that read what the store holds, not what was decided.
class NullSink : public app::DecisionSink {
 public:
  void OnDecision(const core::Observation& /*observation*/,
                  const core::Decision& /*decision*/) override {}
  void Reset() override {}
};

enum class Backend { kSqlite, kPostgres };
const char* BackendName(Backend backend);

// A fresh, empty store for one test: a SQLite file in its own temporary directory, or a
// private schema (selected through the URL's search_path) on the server QUELL_TEST_PG_URL
// names. Both are removed again on destruction.
class TestStore {
 public:
  explicit TestStore(Backend backend);
  ~TestStore();
  TestStore(const TestStore&) = delete;
  TestStore& operator=(const TestStore&) = delete;

  // Why the store cannot be made (e.g. QUELL_TEST_PG_URL unset); empty when it can.
  static std::string Unavailable(Backend backend);

  const std::string& url() const { return url_; }
  const std::string& dir() const { return dir_; }
  // Opens the store on a connection of its own (migrating it on first open).
  core::Result<core::Store> Open() const;
  // The first column of the first row of `sql`, as text ("" when there is no row).
  std::string Query(const std::string& sql) const;

 private:
  Backend backend_;
  std::string dir_;  // the temporary directory; also holds process output for the test
  std::string url_;
  std::string schema_;
};

// Writes `text` to `path`.
void WriteFile(const std::string& path, const std::string& text);
std::string ReadFile(const std::string& path);

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

// Starts `argv` with stdin from `stdin_path` and output to `out_path`/`err_path`. With
// `run_as_uid`, the child drops to that uid (and its gid) first, root ignoring file modes
// otherwise; argv[0] then need not be reachable by that user, only executable by it.
pid_t StartProcess(const std::vector<std::string>& argv, const std::string& stdin_path,
                   const std::string& out_path, const std::string& err_path,
                   std::optional<uid_t> run_as_uid = std::nullopt);
ProcessResult WaitProcess(pid_t pid, const std::string& out_path, const std::string& err_path);
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& stdin_path,
                         const std::string& work_dir, std::optional<uid_t> run_as_uid = {});

// An observation line of the replay/apply contract.
std::string ObservationLine(const std::string& at, const std::string& key,
                            std::optional<bool> unhealthy, const std::string& evidence = "");

// True when the run is CI's (CI=true), where a test that needs a server must not skip.
bool InCi();

}  // namespace quell::testing

// Skips the calling test when `backend` has no server here; under CI=true fails it instead.
#define QUELL_REQUIRE_BACKEND(backend)                                                       \
  do {                                                                                       \
    if (std::string why = ::quell::testing::TestStore::Unavailable(backend); !why.empty()) { \
      if (::quell::testing::InCi()) FAIL() << "CI=true but " << why;                         \
      GTEST_SKIP() << why;                                                                   \
    }                                                                                        \
  } while (0)
