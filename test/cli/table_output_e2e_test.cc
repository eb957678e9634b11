// What `--format table` prints when a key holds control characters: the key comes from the
// watched system, so an ESC sequence or a NUL in it must reach the terminal escaped.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "run_process.h"
#include "test_paths.h"

namespace {

using quell::testing::RunProcess;

TEST(TableOutputE2eTest, KeysWithControlCharactersArePrintedEscapedAndWhole) {
  char pattern[] = "/tmp/quell-table-e2e-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string store = "sqlite:" + dir + "/quell.db";
  // JSON escapes: ESC [2J (clear screen) in one key, a NUL in the other.
  const std::string input =
      R"({"at":"2026-12-02T09:00:00Z","key":"acme\u001b[2J:db","unhealthy":true})"
      "\n"
      R"({"at":"2026-12-02T09:00:00Z","key":"beta\u0000hidden:db","unhealthy":true})"
      "\n";
  auto r = RunProcess({quell::testing::QuellBinary(), "apply", "--store", store}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  r = RunProcess(
      {quell::testing::QuellBinary(), "incidents", "list", "--store", store, "--format", "table"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "a raw ESC reached the terminal";
  EXPECT_EQ(r.out.find('\0'), std::string::npos);
  EXPECT_NE(r.out.find("acme\\x1b[2J:db"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("beta\\0hidden:db"), std::string::npos) << "the key was cut at its NUL";
  std::filesystem::remove_all(dir);
}

}  // namespace
