#pragma once

#include "quell/core/result.h"

namespace quell::testing {

// The kernel's pick for port 0 on 127.0.0.1, released again for a child server to bind. Another
// process may take it in between, so a caller that launches a server retries on "address in use".
core::Result<int> FreeLoopbackPort();

}  // namespace quell::testing
