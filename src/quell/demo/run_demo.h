#pragma once

#include <cstdio>

namespace quell::demo {

// `quell demo`: plays a scripted support-agent outage against an in-process quell-sim, with a
// webhook receiver that times out the first delivery after accepting it, on a clock running
// 60 times the wall; prints the story and checks the counts the receiver saw: one open, one
// resolve, no duplicate. 0 when they hold, 1 when not, 2 when the demo could not start.
int RunDemo(std::FILE* out, std::FILE* err);

}  // namespace quell::demo
