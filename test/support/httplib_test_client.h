#pragma once

#include <mutex>
#include <optional>

#include "quell/core/ports/http_client.h"

namespace quell::testing {

// A core::HttpClient on cpp-httplib, for tests only: it lets adapter tests talk to real servers
// before the libcurl client (quell's production HttpClient) is on this branch, and is to be
// swapped for it. Plain http:// only; total_timeout is applied as the read and write timeout.
class HttplibTestClient final : public core::HttpClient {
 public:
  core::Result<core::HttpResponse> Send(const core::HttpRequest& request) override;

  // The last request given to Send, so a test can check what an adapter sent.
  std::optional<core::HttpRequest> LastRequest() const;

 private:
  mutable std::mutex mu_;
  std::optional<core::HttpRequest> last_;  // guarded by mu_
};

}  // namespace quell::testing
