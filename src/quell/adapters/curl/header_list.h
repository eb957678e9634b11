#pragma once

#include <curl/curl.h>

#include <memory>

#include "quell/core/ports/http_client.h"
#include "quell/core/result.h"

namespace quell::curl {

struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using HeaderList = std::unique_ptr<curl_slist, SlistDeleter>;

// The request's headers as libcurl's list, plus "Expect:" (no 100-continue round trip before
// a large body) and, for a body without a Content-Type, "Content-Type:" so libcurl does not
// claim form encoding. Fails with kInvalidArgument for an empty or non-token name and for a
// value with a line break or NUL, which would smuggle a header in; the message never quotes
// a value, since values carry credentials. May return null when there is nothing to send.
core::Result<HeaderList> BuildHeaderList(const core::HttpHeaders& headers, bool has_body);

}  // namespace quell::curl
