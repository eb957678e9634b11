#pragma once

#include <optional>

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
// Returns when the first message left out (due past where the replay stopped) would have been
// sent; nullopt when none. kInvalidArgument for a template that does not render; otherwise the
// errors of MessageReplay::Run.
core::Result<std::optional<core::WallTime>> RunMessageReplay(
    const config::Config& config, app::ReplayInput& input, app::ReplayedMessageSink& sink,
    std::optional<core::WallTime> until = std::nullopt);

}  // namespace quell::wiring
