#include "quell/cli/replay_command.h"

#include <cerrno>
#include <string>
#include <system_error>

#include "quell/adapters/jsonl/decision_line.h"
#include "quell/adapters/jsonl/line_reader.h"
#include "quell/adapters/jsonl/observation_parser.h"
#include "quell/app/memory_incidents.h"

namespace quell::cli {
namespace {

constexpr size_t kFlushBytes = size_t{1} << 16;

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

bool Flush(std::string& buffer, std::FILE* out) {
  const bool ok =
      buffer.empty() || std::fwrite(buffer.data(), 1, buffer.size(), out) == buffer.size();
  buffer.clear();
  return ok;
}

}  // namespace

int RunReplay(const ReplayOptions& options, core::Clock& clock, int in_fd, std::FILE* out,
              std::FILE* err) {
  // replay keeps no state past its input, but a line from the future would still make the
  // key's later lines stale; "now" is read once, here.
  const core::WallTime now = clock.Now();
  jsonl::ObservationParser parser(
      jsonl::ObservationParserOptions{.limits = options.limits, .now = now, .redact = {}});
  jsonl::LineReader reader(in_fd, jsonl::ObservationParser::kPadding);
  app::MemoryIncidents incidents(options.policy);
  core::Observation observation;
  std::string buffer;
  buffer.reserve(kFlushBytes + 4096);
  uint64_t invalid = 0;

  std::string_view line;
  size_t readable = 0;
  while (reader.Next(line, readable)) {
    if (IsBlank(line)) continue;
    if (auto status = parser.Parse(line, readable, observation); !status) {
      Flush(buffer, out);
      std::fflush(out);
      std::fprintf(err, "stdin:%llu: %s\n", static_cast<unsigned long long>(reader.line_number()),
                   status.error().message.c_str());
      if (!options.skip_invalid) {
        std::fprintf(err, "quell replay: stopped at line %llu; the decisions above it stand\n",
                     static_cast<unsigned long long>(reader.line_number()));
        return 1;
      }
      ++invalid;
      continue;
    }
    jsonl::AppendDecisionLine(buffer, observation, incidents.Apply(observation));
    if (buffer.size() >= kFlushBytes && !Flush(buffer, out)) break;
  }
  if (!Flush(buffer, out) || std::fflush(out) != 0) {
    std::fprintf(err, "quell replay: cannot write the decisions: %s\n",
                 std::generic_category().message(errno).c_str());
    return 1;
  }
  if (reader.error() != 0) {
    std::fprintf(err, "quell replay: cannot read stdin: %s\n",
                 std::generic_category().message(reader.error()).c_str());
    return 1;
  }
  if (invalid > 0) {
    std::fprintf(err, "quell replay: skipped %llu invalid line%s\n",
                 static_cast<unsigned long long>(invalid), invalid == 1 ? "" : "s");
  }
  return 0;
}

}  // namespace quell::cli
