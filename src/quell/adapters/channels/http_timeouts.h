#pragma once

#include <chrono>

#include "quell/core/text/time.h"

namespace quell::channels {

// An HTTP channel's two timeouts, from its channel's shared delivery settings (connect_timeout,
// timeout): set by the builder, not by the type's reader.
struct HttpTimeouts {
  core::Duration connect = std::chrono::seconds(5);
  core::Duration total = std::chrono::seconds(10);
};

}  // namespace quell::channels
