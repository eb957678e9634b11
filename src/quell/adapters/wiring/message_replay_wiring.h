#pragma once

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
// kInvalidArgument for a template that does not render; otherwise the errors of
// MessageReplay::Run.
core::Status RunMessageReplay(const config::Config& config, app::ReplayInput& input,
                              app::ReplayedMessageSink& sink);

}  // namespace quell::wiring
