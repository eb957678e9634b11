#pragma once

#include <string>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/core/ports/clock.h"

namespace quell::wiring {

struct StartupCheckOptions {
  std::string store_override;  // --store, when given: checked instead of the config's
  bool dispatch = true;        // false: `quell run --no-dispatch`, channels are not built
  bool network = true;         // false: no PromQL query is sent (`config check --offline`)
};

struct StartupProblems {
  std::vector<std::string> errors;  // each stops `quell run` and a reload
  // Prometheus could not be reached, so its queries went unchecked: `config check` fails on
  // these; `quell run` and a reload start anyway and log them (the poller retries each cycle).
  std::vector<std::string> unreachable;
};

// Everything that `quell run` needs of a config beyond a well-formed file, checked without
// opening the store: the --store URL's form, the Infrai API key when a condition uses Infrai,
// the operator token (a token_file that resolves; any token at all when push conditions need
// it), the ack-link secret, the callbacks' signing secrets (with or without dispatch), each
// channel's secrets and settings, every template checked against the incident view and
// rendered once, and each PromQL query sent once to the configured Prometheus (a syntax error
// is an error at the query's line). The one check shared by start-up,
// SIGHUP reload and `quell config check`, so they cannot disagree. Messages are located
// (file:line:column) where the config says where, and carry no secret.
StartupProblems CheckStartup(const config::Config& config, const StartupCheckOptions& options,
                             core::Clock& clock);

}  // namespace quell::wiring
