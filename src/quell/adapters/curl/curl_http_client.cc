#include "quell/adapters/curl/curl_http_client.h"

#include <curl/curl.h>

#include <array>
#include <string>
#include <utility>

#include "quell/adapters/curl/easy_handle_pool.h"
#include "quell/adapters/curl/header_list.h"
#include "quell/adapters/curl/response_collector.h"
#include "quell/adapters/curl/transfer_options.h"

namespace quell::curl {

using core::ErrorCode;

CurlHttpClient::CurlHttpClient(CurlOptions options)
    : options_(std::move(options)),
      pool_(std::make_unique<EasyHandlePool>(options_.max_idle_handles)) {}

CurlHttpClient::~CurlHttpClient() = default;

core::Result<core::HttpResponse> CurlHttpClient::Send(const core::HttpRequest& request) {
  if (const CURLcode rc = GlobalInit(); rc != CURLE_OK) {
    return core::MakeError(ErrorCode::kInternal, WithLabel(request, curl_easy_strerror(rc)));
  }
  if (core::Status method = CheckMethod(request); !method.ok()) return method.error();
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
  return FinishTransfer(handle.get(), rc, request, collector, error_buffer.data(),
                        options_.max_body_bytes);
}

}  // namespace quell::curl
