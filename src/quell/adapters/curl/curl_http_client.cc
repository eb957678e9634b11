#include "quell/adapters/curl/curl_http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "quell/adapters/curl/curl_errors.h"
#include "quell/adapters/curl/easy_handle_pool.h"
#include "quell/adapters/curl/header_list.h"
#include "quell/adapters/curl/response_collector.h"

namespace quell::curl {
namespace {

using core::ErrorCode;

// curl_global_init is not thread-safe and must come first; it is never undone, because other
// code in the process may use libcurl too, and exit releases everything anyway.
CURLcode GlobalInit() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  return result;
}

// libcurl reads 0 as "no timeout at all", so the shortest timeout it gets is 1 ms.
long TimeoutMs(core::Duration d) {
  const int64_t ms = std::chrono::ceil<std::chrono::milliseconds>(d).count();
  return static_cast<long>(std::clamp<int64_t>(ms, 1, std::numeric_limits<long>::max()));
}

bool IsMethodToken(std::string_view method) {
  return !method.empty() && std::all_of(method.begin(), method.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '_';
  });
}

// The per-request options. Everything that is policy (TLS, redirects, signals, verbosity) is
// set on every request: curl_easy_reset puts a pooled handle back to libcurl's defaults.
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
  std::string message = RequestLabel(request.method, request.url);
  message += ": ";
  message += what;
  return message;
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

CurlHttpClient::CurlHttpClient(CurlOptions options)
    : options_(std::move(options)),
      pool_(std::make_unique<EasyHandlePool>(options_.max_idle_handles)) {}

CurlHttpClient::~CurlHttpClient() = default;

core::Result<core::HttpResponse> CurlHttpClient::Send(const core::HttpRequest& request) {
  if (const CURLcode rc = GlobalInit(); rc != CURLE_OK) {
    return core::MakeError(ErrorCode::kInternal, WithLabel(request, curl_easy_strerror(rc)));
  }
  if (!IsMethodToken(request.method)) {
    return core::MakeError(
        ErrorCode::kInvalidArgument,
        "bad HTTP method (letters, '-' and '_' only) for " + RedactedUrl(request.url));
  }
  core::Result<HeaderList> headers = BuildHeaderList(request.headers, !request.body.empty());
  if (!headers.ok()) {
    return core::MakeError(headers.error().code, WithLabel(request, headers.error().message));
  }

  PooledHandle handle(*pool_);
  if (handle.get() == nullptr) {
    return core::MakeError(ErrorCode::kInternal, WithLabel(request, "curl_easy_init failed"));
  }
  std::array<char, CURL_ERROR_SIZE> error_buffer{};
  ResponseCollector collector(options_.max_body_bytes);
  CURLcode rc = Configure(handle.get(), request, options_, headers->get(), error_buffer.data());
  if (rc == CURLE_OK) rc = collector.Attach(handle.get());
  if (rc != CURLE_OK) {
    return core::MakeError(
        ErrorCode::kInternal,
        WithLabel(request, std::string("cannot configure libcurl: ") + curl_easy_strerror(rc)));
  }

  rc = curl_easy_perform(handle.get());
  if (collector.abort() != ResponseCollector::Abort::kNone) {
    return AbortError(request, collector.abort(), options_.max_body_bytes);
  }
  if (rc == CURLE_FILESIZE_EXCEEDED) {
    return AbortError(request, ResponseCollector::Abort::kBodyTooLarge, options_.max_body_bytes);
  }
  if (rc != CURLE_OK) {
    // The buffer has libcurl's detail ("Failed to connect to ... port ..."): host and port,
    // never a request header.
    std::string_view detail(error_buffer.data());
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == '\r')) {
      detail.remove_suffix(1);
    }
    return core::MakeError(CurlErrorCode(rc),
                           WithLabel(request, detail.empty() ? curl_easy_strerror(rc) : detail));
  }
  long status = 0;
  curl_easy_getinfo(handle.get(), CURLINFO_RESPONSE_CODE, &status);
  core::HttpResponse response = std::move(collector.response());
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace quell::curl
