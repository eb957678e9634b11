#pragma once

#include <cstdio>

namespace quell::demo {

// `quell demo`: plays a scripted support-agent outage against an in-process quell-sim, with a
// webhook receiver that times out the first delivery after accepting it, on a clock running
// 60 times the wall; prints the story and checks the counts the receiver saw: one open, one
// resolve, no duplicate. Its config and store live in a new directory under the temporary
// directory ($TMPDIR, else /tmp), removed at the end whatever the outcome, SIGINT and SIGTERM
// included, unless `keep`. 0 when the counts hold, 1 when not, 2 when the demo could not
// start, 130 when a signal stopped it.
int RunDemo(std::FILE* out, std::FILE* err, bool keep);

}  // namespace quell::demo
