#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "quell/core/engine/policy.h"
#include "quell/core/result.h"

namespace quell::cli {

// The policy flags shared by `replay` and `apply`. Durations are kept as text until Resolve so
// that a bad value is reported with the flag's name and the reason.
class PolicyFlags {
 public:
  void AddTo(CLI::App& command);

  // The validated policy, or kInvalidArgument naming the flag.
  core::Result<core::Policy> Resolve() const;

 private:
  std::string cooldown_ = "10m";
  uint32_t healthy_polls_ = 3;
  uint32_t unhealthy_polls_ = 1;
  uint32_t flap_window_ = 0;  // 0: flap damping off
  double flap_low_ = 20.0;
  double flap_high_ = 30.0;
  std::string flap_reopen_within_ = "30m";
  int64_t renotify_limit_ = -1;  // -1: unlimited
  std::string min_open_;         // empty: off
  uint32_t evidence_limit_ = 5;
};

}  // namespace quell::cli
