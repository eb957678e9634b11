#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "quell/adapters/curl/curl_options.h"
#include "quell/core/ports/http_client.h"

namespace quell::curl {

class EasyHandlePool;

// core::HttpClient on libcurl. TLS peer and host verification are always on, redirects are
// not followed (a 3xx is a response), and connections are kept alive across calls. Error
// messages carry the method and URL, never a header. Thread-safe.
class CurlHttpClient : public core::HttpClient {
 public:
  explicit CurlHttpClient(CurlOptions options = {});
  ~CurlHttpClient() override;
  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  // Also kInvalidArgument for a method or header that would break the request line (a line
  // break, an empty name), and kRejected when the body passes max_body_bytes.
  core::Result<core::HttpResponse> Send(const core::HttpRequest& request) override;

 private:
  CurlOptions options_;
  std::unique_ptr<EasyHandlePool> pool_;
};

}  // namespace quell::curl
