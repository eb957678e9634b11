#pragma once

#include <cstddef>
#include <string>

namespace quell::curl {

struct CurlOptions {
  // A PEM file of CAs to trust instead of the system's bundle, e.g. a private CA in tests.
  // There is deliberately no option to turn verification off.
  std::string ca_file;
  // A longer response body fails with kRejected rather than growing without bound.
  size_t max_body_bytes = size_t{64} << 20;
  // Idle handles (each with its open connections) kept for reuse; more concurrent requests
  // than this still work, their extra handles are closed afterwards. CurlMultiClient keeps
  // its connections in the multi handle and uses this as the size of that cache too.
  size_t max_idle_handles = 8;
};

}  // namespace quell::curl
