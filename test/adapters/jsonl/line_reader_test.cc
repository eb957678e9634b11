#include "quell/adapters/jsonl/line_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

namespace quell::jsonl {
namespace {

// Feeds `input` through a pipe (a real file descriptor) and collects the lines.
std::vector<std::string> ReadAll(const std::string& input, size_t chunk) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    size_t done = 0;
    while (done < input.size()) {
      const ssize_t n = ::write(fds[1], input.data() + done, input.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  LineReader reader(fds[0], 64, chunk);
  std::vector<std::string> lines;
  std::string_view line;
  size_t readable = 0;
  while (reader.Next(line, readable)) {
    EXPECT_GE(readable, line.size() + 64);
    lines.emplace_back(line);
  }
  writer.join();
  ::close(fds[0]);
  EXPECT_EQ(reader.error(), 0);
  EXPECT_EQ(reader.line_number(), lines.size());
  return lines;
}

TEST(LineReaderTest, SplitsLinesAndStripsCarriageReturns) {
  EXPECT_EQ(ReadAll("a\nbb\r\n\nccc", 1024), (std::vector<std::string>{"a", "bb", "", "ccc"}));
}

TEST(LineReaderTest, HandlesLinesLongerThanTheChunk) {
  const std::string long_line(10000, 'x');
  const auto lines = ReadAll("s\n" + long_line + "\nt\n", 16);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[1], long_line);
  EXPECT_EQ(lines[2], "t");
}

TEST(LineReaderTest, EmptyInputHasNoLines) { EXPECT_TRUE(ReadAll("", 64).empty()); }

TEST(LineReaderTest, ManyLinesAcrossChunkBoundaries) {
  std::string input;
  for (int i = 0; i < 5000; ++i) input += std::to_string(i) + "\n";
  const auto lines = ReadAll(input, 100);
  ASSERT_EQ(lines.size(), 5000U);
  EXPECT_EQ(lines[4999], "4999");
}

}  // namespace
}  // namespace quell::jsonl
