#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>

#include "quell/adapters/config/config.h"
#include "quell/app/operator_commands.h"
#include "quell/core/ports/clock.h"

namespace quell::cli {

// The operator subcommands: `incidents ack|resolve KEY`, `silence add|list|remove` and
// `outbox dead list|retry|drop`. Each takes --store URL and -c FILE (the config's store and,
// for resolve, its routes; --store wins). None creates a store that is not there. Exit codes:
// 0 done; 1 unknown key/id/row, wrong state, no store or a store error (one line naming it);
// 2 bad input.
class OperatorCli {
 public:
  // Adds the commands to `app` and to its existing `incidents` and `outbox` subcommands.
  OperatorCli(CLI::App& app, CLI::App& incidents, CLI::App& outbox);

  // The exit code when one of these commands was parsed; std::nullopt otherwise.
  std::optional<int> Run(core::Clock& clock, std::FILE* out, std::FILE* err) const;

 private:
  struct Flags {
    std::string store_url;
    std::string config_path;
    std::string format = "table";
    std::string by = "cli";
    std::string target;  // KEY, PATTERN, ID or idempotency key
    std::string key;     // silence add --key: an exact key instead of PATTERN
    std::string duration;
    std::string reason;
    bool all = false;     // outbox dead retry --all
    std::string channel;  // with --all: only this channel's rows
    bool upstream = false;
  };
  CLI::App* Add(CLI::App& parent, const char* name, const char* help, const char* target_name,
                const char* target_help, bool list);

  Flags flags_;
  CLI::App* ack_ = nullptr;
  CLI::App* resolve_ = nullptr;
  CLI::App* silence_add_ = nullptr;
  CLI::App* silence_list_ = nullptr;
  CLI::App* silence_remove_ = nullptr;
  CLI::App* dead_list_ = nullptr;
  CLI::App* dead_retry_ = nullptr;
  CLI::App* dead_drop_ = nullptr;
};

}  // namespace quell::cli
