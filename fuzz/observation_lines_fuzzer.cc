// Observation JSON Lines read from a descriptor (docs/operations.md, "Fuzzing"): `quell apply`'s
// stream, `quell replay --messages`'s observations and operator actions, and `quell replay`
// whole (every line decided in memory and written as a decision line). Input: a mode byte (bits
// 0-1: the reader; bits 2-5: how many bytes a read takes, 1 to 16384, so lines cross reads;
// bit 7: skip invalid lines instead of stopping), then the lines.
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "fuzz_input.h"
#include "quell/adapters/jsonl/fd_observation_stream.h"
#include "quell/adapters/jsonl/replay_lines.h"

namespace {

const quell::core::WallTime kNow(std::chrono::seconds(1798794000));

std::FILE* DevNull() {
  static std::FILE* const file = std::fopen("/dev/null", "w");
  return file;
}

// A descriptor holding `bytes`, at offset 0, as a file given on stdin.
int FileOf(std::string_view bytes) {
  const int fd = memfd_create("quell-fuzz-lines", 0);
  if (fd < 0) quell::fuzz::Fail("memfd_create");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) quell::fuzz::Fail("write to the memfd");
    done += static_cast<size_t>(n);
  }
  if (lseek(fd, 0, SEEK_SET) != 0) quell::fuzz::Fail("lseek");
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  quell::fuzz::FuzzInput input(data, size);
  const uint8_t mode = input.Byte();
  const bool skip_invalid = (mode & 0x80) != 0;
  const unsigned shift = (mode >> 2) & 0x0f;
  const size_t read_bytes = shift == 0 ? 4096 : size_t{1} << (shift - 1);
  const int fd = FileOf(input.Rest());

  quell::jsonl::ObservationParserOptions parsing;
  parsing.limits.max_evidence_bytes = 4096;
  parsing.now = kNow;
  switch ((mode & 0x03) % 3) {
    case 0: {  // quell apply
      quell::jsonl::FdObservationStream stream(fd, skip_invalid, parsing, DevNull(), read_bytes);
      quell::core::Observation observation;
      uint64_t lines = 0;
      while (true) {
        auto more = stream.Next(observation);
        if (!more || !*more) break;
        quell::fuzz::Require(!observation.key.empty(), "apply read a line without a key");
        ++lines;
      }
      // A second pass over the same file reads the same lines.
      if (stream.Rewind()) {
        uint64_t again = 0;
        while (true) {
          auto more = stream.Next(observation);
          if (!more || !*more) break;
          ++again;
        }
        quell::fuzz::Require(again == lines, "a rewound stream read other lines");
      }
      break;
    }
    case 1: {  // quell replay --messages
      quell::jsonl::FdObservationStream stream(fd, skip_invalid, parsing, DevNull(), read_bytes);
      quell::app::ReplayItem item;
      while (true) {
        auto more = stream.Next(item);
        if (!more || !*more) break;
      }
      break;
    }
    default: {  // quell replay
      quell::jsonl::ReplayOptions options;
      options.skip_invalid = skip_invalid;
      options.limits = parsing.limits;
      options.read_bytes = read_bytes;
      const int code = quell::jsonl::ReplayLines(options, fd, DevNull(), DevNull());
      quell::fuzz::Require(code == 0 || code == 1, "replay exit code other than 0 or 1");
      break;
    }
  }
  close(fd);
  return 0;
}
