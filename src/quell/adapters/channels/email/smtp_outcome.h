#pragma once

#include <curl/curl.h>

#include "quell/core/ports/channel.h"

namespace quell::email {

// What an SMTP transfer's end means: sent on CURLE_OK; else by the server's last reply code
// (CURLINFO_RESPONSE_CODE): 4xx (a transient refusal: greylisting, a full queue, 421) retries,
// 5xx (no such mailbox, relaying denied, bad credentials) is permanent; with no 4xx/5xx reply
// the libcurl code decides: connection trouble and timeouts retry, TLS and setup errors do not.
core::SendOutcome::Kind ClassifySmtp(CURLcode code, long reply);

}  // namespace quell::email
