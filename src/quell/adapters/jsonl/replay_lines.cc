#include "quell/adapters/jsonl/replay_lines.h"

#include <cerrno>
#include <string>
#include <system_error>

#include "quell/adapters/jsonl/action_parser.h"
#include "quell/adapters/jsonl/decision_line.h"
#include "quell/adapters/jsonl/line_reader.h"
#include "quell/adapters/jsonl/observation_parser.h"
#include "quell/app/memory_incidents.h"

namespace quell::jsonl {
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

int ReplayLines(const ReplayOptions& options, int in_fd, std::FILE* out, std::FILE* err) {
  ObservationParser parser(
      ObservationParserOptions{.limits = options.limits, .now = std::nullopt, .redact = {}});
  LineReader reader(in_fd, ObservationParser::kPadding, options.read_bytes);
  // Actions are refused: the in-memory replay decides observations only, with no store to ack
  // in and no outbox for a resolve or a silence to act on (replay --messages applies them).
  ActionParser actions(options.limits, std::nullopt);
  app::MemoryIncidents incidents(options.policy);
  core::Observation observation;
  std::string buffer;
  buffer.reserve(kFlushBytes + 4096);
  uint64_t invalid = 0;

  std::string_view line;
  size_t readable = 0;
  while (reader.Next(line, readable)) {
    if (IsBlank(line)) continue;
    core::Status status;
    if (actions.IsAction(line, readable)) {
      status = core::MakeError(core::ErrorCode::kInvalidArgument, kActionNeedsMessages);
    } else {
      status = parser.Parse(line, readable, observation);
    }
    if (!status) {
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
    AppendDecisionLine(buffer, observation, incidents.Apply(observation));
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

}  // namespace quell::jsonl
