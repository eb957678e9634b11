#pragma once

#include <cstdint>
#include <string>

#include "quell/core/ports/store.h"
#include "quell/core/result.h"

namespace quell::wiring {

enum class StoreAccess : uint8_t {
  kCreate,    // a command that writes polls (apply, poll-once, dispatch, run): a missing SQLite
              // file is created
  kExisting,  // a command that inspects or operates on what is there: a missing SQLite file is
              // kNotFound ("no store at PATH"), never created
};

// Opens the store a --store URL names: "sqlite:PATH" (optionally "?busy_timeout_ms=N") or
// "postgresql://..." / "postgres://...". kInvalidArgument for any other scheme; otherwise the
// store's own open errors, each one line. A relative SQLite path is taken from the working
// directory, as `quell run` takes it. Each call is its own connection.
core::Result<core::Store> OpenStore(const std::string& url,
                                    StoreAccess access = StoreAccess::kCreate);

// The store URL a command was given: --store when set (it wins over -c), else the `store:` of
// the config at `config_path` when set, else sqlite:quell.db. kInvalidArgument with the
// config's own file:line:column message when it does not load.
core::Result<std::string> ChooseStoreUrl(const std::string& store_flag,
                                         const std::string& config_path);

}  // namespace quell::wiring
