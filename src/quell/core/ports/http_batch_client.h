#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "quell/core/ports/http_client.h"
#include "quell/core/result.h"

namespace quell::core {

// One request of a batch. `lane` groups requests that share a concurrency limit (one lane per
// configured channel), so a slow provider cannot take every connection.
struct HttpExchange {
  HttpRequest request;
  uint32_t lane = 0;
};

// Performs many HTTP exchanges at once on the calling thread (libcurl multi), at most
// lane_limits[lane] in flight per lane. `done(index, result)` is called on the calling thread
// as each exchange finishes, in completion order, before SendAll returns; errors are the
// transport errors of HttpClient::Send. Not thread-safe: one batch at a time per instance.
class HttpBatchClient {
 public:
  virtual ~HttpBatchClient() = default;
  virtual void SendAll(
      std::span<const HttpExchange> exchanges, std::span<const uint32_t> lane_limits,
      const std::function<void(size_t index, Result<HttpResponse> result)>& done) = 0;
};

}  // namespace quell::core
