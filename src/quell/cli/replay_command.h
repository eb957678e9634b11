#pragma once

#include <cstdio>
#include <string>

#include "quell/adapters/jsonl/replay_lines.h"

namespace quell::cli {

using ReplayOptions = jsonl::ReplayOptions;

// `quell replay` (see jsonl::ReplayLines): the input's times are its only clock.
int RunReplay(const ReplayOptions& options, int in_fd, std::FILE* out, std::FILE* err);

struct MessageReplayOptions {
  std::string config_path;
  bool skip_invalid = false;
  std::string until;      // --until: RFC 3339; empty: stop at the last line
  std::string store_url;  // --store sqlite:PATH, a new file kept afterwards; empty: a temporary one
};

// `quell replay -c FILE --messages [--until T]` (see wiring::RunMessageReplay): one line per
// message the config's channels would have been sent, on the input's clock. When something
// falls due after the replay's end, stderr says when. Returns 0; 1 for malformed input or a
// store error (the messages before it have been printed); 2 for a bad --until, a config
// that cannot be used, or a --store that is not a new SQLite file.
int RunMessageReplay(const MessageReplayOptions& options, int in_fd, std::FILE* out,
                     std::FILE* err);

}  // namespace quell::cli
