#pragma once

#include <string>

#include "quell/adapters/config/config.h"
#include "quell/adapters/wiring/store_url.h"
#include "quell/core/ports/store.h"
#include "quell/core/result.h"

namespace quell::wiring {

// Which store a command works on, from its flags.
struct StoreChoice {
  std::string store_flag;   // --store: wins when set
  std::string config_path;  // -c: its `store:` when there is no --store
  // The config the command already loaded from config_path, if it did: its `store:` is used
  // instead of reading the file again.
  const config::Config* config = nullptr;
  StoreAccess access = StoreAccess::kCreate;
};

struct CommandStore {
  std::string url;  // as chosen (what a second connection to the same store opens)
  core::Store store;
};

// Every command's one way to its store: the URL chosen as ChooseStoreUrl does (--store, else
// the config's, else sqlite:quell.db), then opened as OpenStore does. kInvalidArgument for a
// config that does not load or a URL of no known scheme, else the store's own open errors.
core::Result<CommandStore> OpenCommandStore(const StoreChoice& choice);

}  // namespace quell::wiring
