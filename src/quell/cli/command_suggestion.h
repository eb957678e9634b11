#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace quell::cli {

// When the command line names a subcommand `app` has not got ("quell incidnets list"), the one
// line to print in place of CLI11's "A subcommand is required": the word, where it was read,
// and the nearest command (core::ClosestName) or else every command there is. nullopt when
// each word before the first command without subcommands is a known one.
std::optional<std::string> UnknownCommandLine(const CLI::App& app, int argc,
                                              const char* const* argv);

}  // namespace quell::cli
