#pragma once

#include <string_view>

namespace quell::demo {

// What `quell demo` plays, kept in the binary so an installed quell can run it anywhere.
//
// The quell-sim scenario: a support agent's model calls time out for tenant acme. The error is
// seen at the polls of 09:00 and 09:01, healthy at 09:02, seen again at 09:03, then healthy
// for good. The sim's clock moves one minute per poll.
extern const std::string_view kDemoScenario;

// The config quell runs: one-minute polls, a 10-minute cooldown, three healthy polls to close,
// one signed webhook channel. INFRAI_BASE_URL, QUELL_STORE, QUELL_WEBHOOK_URL and the secrets
// come from the environment the demo sets up. Times are on the demo's compressed clock except
// the webhook `timeout`, which libcurl counts on the wall.
extern const std::string_view kDemoConfig;

// How many simulated seconds pass per wall second: a one-minute poll each second.
constexpr double kDemoClockFactor = 60.0;

}  // namespace quell::demo
