#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "quell/adapters/curl/curl_options.h"
#include "quell/adapters/curl/response_collector.h"
#include "quell/core/ports/http_client.h"
#include "quell/core/result.h"

// What CurlHttpClient and CurlMultiClient share: one request's easy-handle options and the
// errors a finished transfer maps to, so both clients behave alike.
namespace quell::curl {

// curl_global_init once per process (it is not thread-safe and must come first).
CURLcode GlobalInit();

// kInvalidArgument unless the method is letters, '-' and '_' only.
core::Status CheckMethod(const core::HttpRequest& request);

// Every option of one request. Policy (TLS verification, no redirects, no signals, no verbose
// output) is set each time: curl_easy_reset puts a pooled handle back to libcurl's defaults.
// `request`, `headers` and `error_buffer` must outlive the transfer.
CURLcode Configure(CURL* handle, const core::HttpRequest& request, const CurlOptions& options,
                   curl_slist* headers, char* error_buffer);

// "POST http://host/path: what".
std::string WithLabel(const core::HttpRequest& request, std::string_view what);

// The response of a finished transfer, or the error it ended with: kTimeout, kUnavailable,
// kRejected (TLS, body too large) as core::HttpClient documents. Never quotes a header.
core::Result<core::HttpResponse> FinishTransfer(CURL* handle, CURLcode rc,
                                                const core::HttpRequest& request,
                                                ResponseCollector& collector,
                                                const char* error_buffer, size_t max_body_bytes);

}  // namespace quell::curl
