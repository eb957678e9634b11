#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "quell/adapters/curl/curl_options.h"
#include "quell/core/ports/http_batch_client.h"

namespace quell::curl {

class EasyHandlePool;

// core::HttpBatchClient on libcurl's multi interface: all of a batch's transfers run on the
// calling thread. Requests behave exactly as with CurlHttpClient (TLS verification on, no
// redirects, the same timeouts, body limit and error codes, messages without header values).
// The multi handle outlives batches, so its connection cache keeps connections open from one
// batch to the next. A lane with no entry in lane_limits, or a limit of 0, gets a limit of 1.
// Not thread-safe.
class CurlMultiClient : public core::HttpBatchClient {
 public:
  explicit CurlMultiClient(CurlOptions options = {});
  ~CurlMultiClient() override;
  CurlMultiClient(const CurlMultiClient&) = delete;
  CurlMultiClient& operator=(const CurlMultiClient&) = delete;

  // A request that cannot be started (bad method or header) is reported through `done` with
  // kInvalidArgument before any transfer begins; the rest of the batch still runs.
  void SendAll(std::span<const core::HttpExchange> exchanges, std::span<const uint32_t> lane_limits,
               const std::function<void(size_t index, core::Result<core::HttpResponse> result)>&
                   done) override;

 private:
  struct Multi;
  CurlOptions options_;
  std::unique_ptr<EasyHandlePool> pool_;
  std::unique_ptr<Multi> multi_;
};

}  // namespace quell::curl
