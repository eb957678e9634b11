#pragma once

#include <curl/curl.h>

#include <string>
#include <string_view>

#include "quell/core/result.h"

namespace quell::curl {

// What a failed transfer means to a caller deciding whether to retry (see core::HttpClient).
core::ErrorCode CurlErrorCode(CURLcode code);

// "GET http://host/path?limit=[redacted]": how every error message of the client begins, the
// URL by core::RedactUrl (no userinfo, query values by name only). Header values never appear
// in one.
std::string RequestLabel(std::string_view method, std::string_view url);

}  // namespace quell::curl
