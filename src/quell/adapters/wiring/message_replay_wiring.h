#pragma once

#include <optional>
#include <string>

#include "quell/adapters/config/config.h"
#include "quell/app/message_replay.h"
#include "quell/core/result.h"

namespace quell::wiring {

// `quell replay -c FILE --messages`: the real delivery path on virtual time. Builds a private
// SQLite store in a new temporary directory (removed before returning), the config's renderer,
// and a dispatcher whose every configured channel is an app::RecordingChannel registered with
// the channel's own type and limits, then runs app::MessageReplay over `input`, each delivered
// message going to `sink`; the input's operator actions go through app::OperatorCommands over
// the same store, routed as the config routes them. Nothing in the config is contacted.
// With `until`, the clock runs on past the last line to it (MessageReplayOptions::until).
// With `store_path` (a file ClaimNewStoreFile made), the store is that SQLite file instead, kept
// afterwards so what the replay did can be read as a daemon's store is read. Returns when the first
// message left out (due past where the replay stopped) would have been sent; nullopt when none.
// kInvalidArgument for a template that does not render; otherwise the errors of MessageReplay::Run.
core::Result<std::optional<core::WallTime>> RunMessageReplay(
    const config::Config& config, app::ReplayInput& input, app::ReplayedMessageSink& sink,
    std::optional<core::WallTime> until = std::nullopt, const std::string& store_path = "");

// Creates `path` as an empty file for `replay --messages --store`, atomically (O_EXCL), so a
// store with history is never replayed on top of (the trace's clock would run backwards
// through it) and two replays cannot share one. kInvalidArgument naming the path when it
// exists or cannot be created.
core::Status ClaimNewStoreFile(const std::string& path);

}  // namespace quell::wiring
