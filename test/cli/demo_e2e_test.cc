// `quell demo` as a user runs it (the README's first command): the real binary, its own
// quell-sim, receiver and store. It removes its directory when it ends (after a SIGINT too);
// with --keep the store stays, and is read with `quell outbox`.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "run_process.h"
#include "test_paths.h"

namespace {

using nlohmann::json;
using quell::testing::RunProcess;

// A private temporary directory for one demo run ($TMPDIR of the child), removed afterwards.
class TempRoot {
 public:
  TempRoot() {
    std::string pattern = "/tmp/quell-demo-e2e-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempRoot() {
    std::filesystem::remove_all(path_);
    std::filesystem::remove(path_ + ".log");  // a child's log, kept beside it
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;
  const std::string& path() const { return path_; }
  // What the demo left in it.
  std::vector<std::string> Entries() const {
    std::vector<std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
      out.push_back(entry.path().filename().string());
    }
    return out;
  }

 private:
  std::string path_;
};

// `quell demo ARGS` with TMPDIR set to `root`.
std::vector<std::string> Demo(const TempRoot& root, const std::string& args = "") {
  return {"/bin/sh", "-c", "TMPDIR=\"$0\" exec \"$1\" demo " + args, root.path(),
          quell::testing::QuellBinary()};
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(DemoE2eTest, OneOpenAndOneResolveReachTheReceiverAndTheTimedOutRetryIsItsOnlyDuplicate) {
  const TempRoot root;
  const auto demo = RunProcess(Demo(root));
  ASSERT_EQ(demo.exit_code, 0) << demo.out << demo.err;
  // The directory it said it used is gone, and nothing else was left.
  const size_t config = demo.out.find("config: ");
  ASSERT_NE(config, std::string::npos) << demo.out;
  const std::filesystem::path used =
      demo.out.substr(config + 8, demo.out.find('\n', config) - config - 8);
  EXPECT_FALSE(std::filesystem::exists(used.parent_path()))
      << used.parent_path() << " was left behind";
  EXPECT_EQ(root.Entries(), std::vector<std::string>{});
  const std::string& out = demo.out;
  EXPECT_EQ(Count(out, "notify (open)"), 1U) << out;
  EXPECT_EQ(Count(out, "healthy     resolve"), 1U) << out;  // the decision line
  EXPECT_EQ(Count(out, "-> outbox: one message"), 2U) << out;
  EXPECT_EQ(Count(out, "answered too late"), 1U) << out;
  EXPECT_EQ(Count(out, "dropped as a duplicate"), 1U) << out;
  EXPECT_NE(out.find("ok: one open, one resolve, no duplicate delivered."), std::string::npos);
  EXPECT_EQ(out.find("ifr_demo_"), std::string::npos) << "the demo's API key was printed";
  EXPECT_EQ(demo.err.find("ifr_demo_"), std::string::npos);
  // One story line per poll: the summary's count is the number of polls the story lists
  // (quiet polls included; it once said "9 polls" and listed 7).
  const size_t summary = out.find(" polls, the error seen at ");
  ASSERT_NE(summary, std::string::npos) << out;
  const size_t line_start = out.rfind('\n', summary) + 1;
  const size_t polls = std::stoul(out.substr(line_start, summary - line_start));
  EXPECT_EQ(Count(out, " poll  "), polls) << out;
}

TEST(DemoE2eTest, KeepLeavesTheStoreWhichHoldsTheTwoSentRows) {
  const TempRoot root;
  const auto demo = RunProcess(Demo(root, "--keep"));
  ASSERT_EQ(demo.exit_code, 0) << demo.out << demo.err;
  const std::string& out = demo.out;
  // The store agrees: two rows, both sent; the open took a second attempt with its one key.
  const size_t at = out.find("its store: sqlite:");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string url = out.substr(at + 11, out.find('\n', at) - at - 11);
  EXPECT_EQ(root.Entries().size(), 1U);
  const auto list = RunProcess(
      {quell::testing::QuellBinary(), "outbox", "list", "--store", url, "--format", "jsonl"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::istringstream lines(list.out);
  std::vector<json> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(json::parse(line));
  ASSERT_EQ(rows.size(), 2U) << list.out;
  for (const json& row : rows) {
    EXPECT_EQ(row["status"], "sent") << row.dump();
    EXPECT_EQ(row["attempts"], row["transition"] == "open" ? 2 : 1) << row.dump();
  }
}

TEST(DemoE2eTest, ASigintStopsTheDemoAndItsDirectoryGoesWithIt) {
  const TempRoot root;
  const std::filesystem::path log = root.path() + ".log";
  quell::testing::Child demo(Demo(root), log);
  ASSERT_TRUE(demo.running());
  // Under way: its directory made and the daemon's store in it.
  ASSERT_TRUE(quell::testing::WaitFor(
      [&] {
        for (const std::string& entry : root.Entries()) {
          if (std::filesystem::exists(root.path() + "/" + entry + "/quell.db")) return true;
        }
        return false;
      },
      std::chrono::seconds(30)))
      << quell::testing::ReadFile(log);
  const int status = demo.Signal(SIGINT);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal, not stopped by it";
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(root.Entries(), std::vector<std::string>{}) << quell::testing::ReadFile(log);
  EXPECT_NE(quell::testing::ReadFile(log).find("interrupted"), std::string::npos);
}

}  // namespace
