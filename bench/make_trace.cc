// Writes a synthetic observation trace for the end-to-end replay benchmark:
//   quell-bench-make-trace LINES KEYS > trace.jsonl
#include <cstdio>
#include <cstdlib>

#include "trace_gen.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s LINES KEYS\n", argv[0]);
    return 2;
  }
  const auto lines = std::strtoull(argv[1], nullptr, 10);
  const auto keys = std::strtoull(argv[2], nullptr, 10);
  if (lines == 0 || keys == 0) {
    std::fprintf(stderr, "LINES and KEYS must be positive integers\n");
    return 2;
  }
  const std::string text = quell::bench::ToJsonLines(quell::bench::MakeTrace(lines, keys));
  return std::fwrite(text.data(), 1, text.size(), stdout) == text.size() ? 0 : 1;
}
