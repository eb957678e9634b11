#pragma once

#include <string>
#include <vector>

namespace quell::testing {

struct ProcessResult {
  int exit_code = -1;  // the exit status, or 128 + signal when a signal ended it
  std::string out;
  std::string err;
};

// Runs `argv` (argv[0] a path) with `input` on its stdin and collects stdout and stderr.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& input = "");

}  // namespace quell::testing
