#pragma once

#include <cstdint>
#include <string>

namespace quell::app {

// A random UUID v4, lower case ("3f0c...-4...-[89ab]..."), from `state`, which it advances.
// Seed the state once from an entropy source; the daemon names each poll cycle with one.
std::string NewRunId(uint64_t& state);

}  // namespace quell::app
