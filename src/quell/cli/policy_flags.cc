#include "quell/cli/policy_flags.h"

namespace quell::cli {
namespace {

core::Result<core::Duration> FlagDuration(const char* flag, const std::string& text) {
  auto parsed = core::ParseDuration(text);
  if (!parsed) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           std::string(flag) + ": " + parsed.error().message);
  }
  return parsed;
}

}  // namespace

void PolicyFlags::AddTo(CLI::App& command) {
  command
      .add_option("--cooldown", cooldown_,
                  "Minimum time between notifications of one open incident (Go duration)")
      ->capture_default_str();
  command
      .add_option("--healthy-polls", healthy_polls_,
                  "Consecutive healthy polls that resolve an incident")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command
      .add_option("--unhealthy-polls", unhealthy_polls_,
                  "Consecutive unhealthy polls that open an incident (the pending period)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command.add_option("--flap-window", flap_window_,
                     "Enable flap damping over the last N observations (3..32)");
  command.add_option("--flap-low", flap_low_, "Flapping stops below this state-change percentage")
      ->capture_default_str();
  command.add_option("--flap-high", flap_high_, "Flapping starts at this state-change percentage")
      ->capture_default_str();
  command
      .add_option("--flap-reopen-within", flap_reopen_within_,
                  "While flapping, a failure this soon after a resolve continues the old incident")
      ->capture_default_str();
  command.add_option("--renotify-limit", renotify_limit_,
                     "Cooldown renotifications allowed per incident");
  command.add_option("--min-open", min_open_,
                     "Minimum time an incident stays open before it may resolve");
  command
      .add_option("--evidence-limit", evidence_limit_, "Recent evidence entries kept per incident")
      ->capture_default_str();
}

core::Result<core::Policy> PolicyFlags::Resolve() const {
  core::Policy policy;
  auto cooldown = FlagDuration("--cooldown", cooldown_);
  if (!cooldown) return cooldown.error();
  policy.cooldown = *cooldown;
  policy.healthy_polls_to_close = healthy_polls_;
  policy.unhealthy_polls_to_open = unhealthy_polls_;
  policy.evidence_limit = evidence_limit_;
  if (flap_window_ != 0) {
    core::FlapDamping flap;
    flap.window = flap_window_;
    flap.low_percent = flap_low_;
    flap.high_percent = flap_high_;
    auto reopen = FlagDuration("--flap-reopen-within", flap_reopen_within_);
    if (!reopen) return reopen.error();
    flap.reopen_within = *reopen;
    policy.flap = flap;
  }
  if (renotify_limit_ >= 0) policy.renotify_limit = static_cast<uint32_t>(renotify_limit_);
  if (!min_open_.empty()) {
    auto min_open = FlagDuration("--min-open", min_open_);
    if (!min_open) return min_open.error();
    policy.min_open = *min_open;
  }
  if (auto status = core::Validate(policy); !status) return status.error();
  return policy;
}

}  // namespace quell::cli
