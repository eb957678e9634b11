#pragma once

#include <memory>
#include <optional>
#include <string>

#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/wiring/upstream_wiring.h"
#include "quell/app/operator_commands.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/store.h"

namespace quell::wiring {

// The store, the config's routes and the use cases over them, for one command.
struct OperatorSession {
  std::optional<core::Store> store;
  jsonl::JsonPayloadEncoder encoder;
  std::unique_ptr<UpstreamWiring> upstream;
  std::unique_ptr<app::OperatorCommands> commands;
};

// Opens the existing store (`store_url`, else the config's, else sqlite:quell.db) and the
// config's routes for one operator command. `upstream`: also wire the config's Infrai client for
// a resolve --upstream (kInvalidArgument without `config_path`). kInvalidArgument for a config
// that does not load; the store's own errors otherwise.
core::Result<std::unique_ptr<OperatorSession>> OpenOperatorSession(const std::string& store_url,
                                                                   const std::string& config_path,
                                                                   bool upstream,
                                                                   core::Clock& clock);

}  // namespace quell::wiring
