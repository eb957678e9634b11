#pragma once

#include <string>
#include <vector>

#include "quell/adapters/config/config.h"

namespace quell::wiring {

// The settings a reload (SIGHUP) of `quell run` cannot apply, by their names in the file: the
// HTTP listener's address and credentials (the server is bound once), the log's format and
// level (the log is opened once), the heartbeat (its pinger is built once) and the store (the
// poll leases are held in the first). A reload applies every other setting.
const std::vector<std::string>& RestartOnlySettings();

// Those of RestartOnlySettings() whose value differs between `started` (the config the process
// started with, which it keeps running for them) and `next` (a reload's), in the order above.
// `store_override`: --store was given, so the file's store is not the one used.
std::vector<std::string> SettingsNeedingRestart(const config::Config& started,
                                                const config::Config& next, bool store_override);

}  // namespace quell::wiring
