#pragma once

#include <cstddef>
#include <cstdio>
#include <memory>

#include "quell/adapters/jsonl/action_parser.h"
#include "quell/adapters/jsonl/line_reader.h"
#include "quell/adapters/jsonl/observation_parser.h"
#include "quell/app/replay_input.h"
#include "quell/core/ports/observation_stream.h"

namespace quell::jsonl {

// Observation JSON Lines from a file descriptor (`quell apply`'s stdin); blank lines are
// skipped. A line that does not parse is kInvalidArgument naming "stdin:LINE", or with
// `skip_invalid` printed to `err` and counted. Rewind works when the descriptor is a regular
// file (kUnavailable otherwise). As a ReplayInput (replay --messages) it also reads operator
// actions (ActionParser); as an ObservationStream it refuses them, naming the line.
// `read_bytes` are read at once (LineReader's chunk; small in the fuzzer).
class FdObservationStream : public core::ObservationStream, public app::ReplayInput {
 public:
  FdObservationStream(int fd, bool skip_invalid, ObservationParserOptions parsing, std::FILE* err,
                      size_t read_bytes = size_t{1} << 20);

  core::Result<bool> Next(core::Observation& out) override;
  core::Result<bool> Next(app::ReplayItem& out) override;
  core::Status Rewind() override;

  uint64_t invalid() const { return invalid_; }  // lines skipped since the last (re)start

 private:
  void Restart();
  // Reads into `observation` (actions refused) or, when it is null, into `item`.
  core::Result<bool> Read(core::Observation* observation, app::ReplayItem* item);

  int fd_;
  bool skip_invalid_;
  std::FILE* err_;
  size_t read_bytes_;
  ActionParser actions_;
  ObservationParser parser_;
  std::unique_ptr<LineReader> reader_;
  uint64_t invalid_ = 0;
};

}  // namespace quell::jsonl
