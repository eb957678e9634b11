// `quell demo` as a user runs it (the README's first command): the real binary, its own
// quell-sim, receiver and store; then the store it leaves behind is read with `quell outbox`.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.h"

namespace {

using nlohmann::json;
using quell::testing::RunProcess;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(DemoE2eTest, OneOpenAndOneResolveReachTheReceiverAndTheTimedOutRetryIsItsOnlyDuplicate) {
  const auto demo = RunProcess({QUELL_BINARY, "demo"});
  ASSERT_EQ(demo.exit_code, 0) << demo.out << demo.err;
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

  // The store agrees: two rows, both sent; the open took a second attempt with its one key.
  const size_t at = out.find("Store: sqlite:");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string url = out.substr(at + 7, out.find('\n', at) - at - 7);
  const auto list =
      RunProcess({QUELL_BINARY, "outbox", "list", "--store", url, "--format", "jsonl"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::istringstream lines(list.out);
  std::vector<json> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(json::parse(line));
  ASSERT_EQ(rows.size(), 2U) << list.out;
  for (const json& row : rows) {
    EXPECT_EQ(row["status"], "sent") << row.dump();
    EXPECT_EQ(row["attempts"], row["transition"] == "open" ? 2 : 1) << row.dump();
  }
  std::filesystem::remove_all(std::filesystem::path(url.substr(7)).parent_path());
}

}  // namespace
