#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// Case-insensitive lookup of the first header named `name`; empty when absent.
std::string_view FindHeader(const HttpHeaders& headers, std::string_view name);

struct HttpRequest {
  std::string method = "GET";
  std::string url;  // absolute, with the query string already encoded
  // What error messages show instead of `url` when the URL itself is a credential (a bot
  // token in its path, a webhook's key in its query); empty: `url` without its userinfo.
  std::string label_url{};
  HttpHeaders headers;
  std::string body;
  Duration connect_timeout = std::chrono::seconds(5);
  Duration total_timeout = std::chrono::seconds(30);
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;
  std::string body;
  // Why a retrying client stopped retrying and handed back this (failed) answer, for the
  // adapter that reads it to put in its error; empty otherwise. Never on the wire.
  std::string retry_note{};  // {}: aggregate initializers may leave it out
};

// One HTTP exchange, no retries: every status (429 and 5xx too) is a response, not an error.
// Errors are transport failures only: kTimeout (connect or total timeout), kUnavailable
// (refused, reset, DNS), kRejected (TLS verification failed: permanent), kInvalidArgument (a
// malformed URL). Error messages name the method and URL, never a header value: headers carry
// credentials. Thread-safe.
class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual Result<HttpResponse> Send(const HttpRequest& request) = 0;
};

}  // namespace quell::core
