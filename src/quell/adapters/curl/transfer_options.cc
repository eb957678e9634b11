#include "quell/adapters/curl/transfer_options.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <utility>

#include "quell/adapters/curl/curl_errors.h"
#include "quell/core/redact/redact_url.h"

namespace quell::curl {
namespace {

using core::ErrorCode;

// libcurl reads 0 as "no timeout at all", so the shortest timeout it gets is 1 ms.
long TimeoutMs(core::Duration d) {
  const int64_t ms = std::chrono::ceil<std::chrono::milliseconds>(d).count();
  return static_cast<long>(std::clamp<int64_t>(ms, 1, std::numeric_limits<long>::max()));
}

core::Error AbortError(const core::HttpRequest& request, ResponseCollector::Abort abort,
                       size_t max_body_bytes) {
  switch (abort) {
    case ResponseCollector::Abort::kBodyTooLarge:
      break;
    case ResponseCollector::Abort::kHeadersTooLarge:
      return core::MakeError(ErrorCode::kRejected,
                             WithLabel(request, "response headers too large"));
    case ResponseCollector::Abort::kOutOfMemory:
      return core::MakeError(ErrorCode::kInternal, WithLabel(request, "out of memory"));
    case ResponseCollector::Abort::kNone:
      return core::MakeError(ErrorCode::kInternal, WithLabel(request, "transfer aborted"));
  }
  return core::MakeError(ErrorCode::kRejected,
                         WithLabel(request, "response body exceeds the limit of " +
                                                std::to_string(max_body_bytes) + " bytes"));
}

}  // namespace

// Never undone: other code in the process may use libcurl too, and exit releases everything.
CURLcode GlobalInit() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  return result;
}

core::Status CheckMethod(const core::HttpRequest& request) {
  const std::string& method = request.method;
  const bool token = !method.empty() && std::all_of(method.begin(), method.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '_';
  });
  if (token) return {};
  return core::MakeError(
      ErrorCode::kInvalidArgument,
      "bad HTTP method (letters, '-' and '_' only) for " +
          (request.label_url.empty() ? core::RedactUrl(request.url) : request.label_url));
}

CURLcode Configure(CURL* h, const core::HttpRequest& request, const CurlOptions& options,
                   curl_slist* headers, char* error_buffer) {
  CURLcode rc = CURLE_OK;
  const auto set = [&](CURLoption option, auto value) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(h, option, value);
  };
  set(CURLOPT_URL, request.url.c_str());
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_ERRORBUFFER, error_buffer);
  set(CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts: signals and threads do not mix
  set(CURLOPT_VERBOSE, 0L);   // verbose output would print the Authorization header
  set(CURLOPT_FOLLOWLOCATION, 0L);
  set(CURLOPT_SSL_VERIFYPEER, 1L);
  set(CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options.ca_file.empty()) set(CURLOPT_CAINFO, options.ca_file.c_str());
  set(CURLOPT_CONNECTTIMEOUT_MS, TimeoutMs(request.connect_timeout));
  set(CURLOPT_TIMEOUT_MS, TimeoutMs(request.total_timeout));
  set(CURLOPT_TCP_KEEPALIVE, 1L);
  // Refuses early when a Content-Length announces too much; ResponseCollector catches the rest.
  set(CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(std::min<size_t>(
                                     options.max_body_bytes, std::numeric_limits<int64_t>::max())));
  set(CURLOPT_HTTPHEADER, headers);

  const std::string& method = request.method;
  if (method == "HEAD") {
    set(CURLOPT_NOBODY, 1L);
  } else if (!request.body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    // Without a copy: `request` outlives the transfer.
    set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    set(CURLOPT_POSTFIELDS, request.body.data());
  }
  if (method != "GET" && method != "POST" && method != "HEAD") {
    set(CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  return rc;
}

std::string WithLabel(const core::HttpRequest& request, std::string_view what) {
  std::string message =
      RequestLabel(request.method, request.label_url.empty() ? request.url : request.label_url);
  message += ": ";
  message += what;
  return message;
}

core::Result<core::HttpResponse> FinishTransfer(CURL* handle, CURLcode rc,
                                                const core::HttpRequest& request,
                                                ResponseCollector& collector,
                                                const char* error_buffer, size_t max_body_bytes) {
  if (collector.abort() != ResponseCollector::Abort::kNone) {
    return AbortError(request, collector.abort(), max_body_bytes);
  }
  if (rc == CURLE_FILESIZE_EXCEEDED) {
    return AbortError(request, ResponseCollector::Abort::kBodyTooLarge, max_body_bytes);
  }
  if (rc != CURLE_OK) {
    // The buffer has libcurl's detail ("Failed to connect to ... port ..."): host and port,
    // never a request header.
    std::string_view detail(error_buffer);
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == '\r')) {
      detail.remove_suffix(1);
    }
    return core::MakeError(CurlErrorCode(rc),
                           WithLabel(request, detail.empty() ? curl_easy_strerror(rc) : detail));
  }
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  core::HttpResponse response = std::move(collector.response());
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace quell::curl
