#include "httplib_test_client.h"

#include <httplib.h>

#include <chrono>
#include <string>

namespace quell::testing {
namespace {

using core::ErrorCode;

ErrorCode CodeFor(httplib::Error error) {
  switch (error) {
    case httplib::Error::ConnectionTimeout:
      return ErrorCode::kTimeout;
    case httplib::Error::SSLServerVerification:
      return ErrorCode::kRejected;
    default:  // refused, reset, a read that timed out: httplib does not tell these apart
      return ErrorCode::kUnavailable;
  }
}

}  // namespace

core::Result<core::HttpResponse> HttplibTestClient::Send(const core::HttpRequest& request) {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    last_ = request;
  }
  const std::string what = request.method + " " + request.url;
  constexpr std::string_view kScheme = "http://";
  if (request.url.compare(0, kScheme.size(), kScheme) != 0) {
    return core::MakeError(ErrorCode::kInvalidArgument, what + ": only http:// URLs");
  }
  const size_t slash = request.url.find('/', kScheme.size());
  httplib::Client client(request.url.substr(0, slash));
  if (!client.is_valid()) return core::MakeError(ErrorCode::kInvalidArgument, what + ": bad URL");
  client.set_url_encode(false);  // the port's contract: the URL is encoded already
  client.set_keep_alive(false);
  client.set_connection_timeout(request.connect_timeout);
  client.set_read_timeout(request.total_timeout);
  client.set_write_timeout(request.total_timeout);

  httplib::Request out;
  out.method = request.method;
  out.path = slash == std::string::npos ? "/" : request.url.substr(slash);
  for (const auto& [name, value] : request.headers) out.headers.emplace(name, value);
  out.body = request.body;
  const httplib::Result result = client.send(out);
  if (!result) {
    return core::MakeError(CodeFor(result.error()),
                           what + ": " + httplib::to_string(result.error()));
  }
  core::HttpResponse response;
  response.status = result->status;
  for (const auto& [name, value] : result->headers) response.headers.emplace_back(name, value);
  response.body = result->body;
  return response;
}

std::optional<core::HttpRequest> HttplibTestClient::LastRequest() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

}  // namespace quell::testing
