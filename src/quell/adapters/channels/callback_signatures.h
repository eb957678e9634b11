#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

// Checks the signatures providers put on the requests they send back to quell (docs/http.md
// names the provider documents these follow). Both compare in constant time and never quote a
// signature in their messages (kPermissionDenied).
namespace quell::channels {

// PagerDuty webhooks v3: X-PagerDuty-Signature holds one or more comma-separated "v1=<hex>",
// each the lower-case hex HMAC-SHA256 of the raw body under a subscription's signing secret
// (several while a secret rotates). Ok when any of them matches any of `secrets`.
core::Status VerifyPagerDutySignature(const std::vector<std::string>& secrets,
                                      std::string_view signature_header, std::string_view body);

// Slack request signing: X-Slack-Signature is "v0=" + the hex HMAC-SHA256, under the app's
// signing secret, of "v0:<X-Slack-Request-Timestamp>:<raw body>"; the timestamp (Unix seconds)
// must be within `window` of `now`, so a captured request cannot be replayed later.
core::Status VerifySlackSignature(std::string_view signing_secret,
                                  std::string_view timestamp_header,
                                  std::string_view signature_header, std::string_view body,
                                  core::WallTime now,
                                  core::Duration window = std::chrono::minutes(5));

}  // namespace quell::channels
