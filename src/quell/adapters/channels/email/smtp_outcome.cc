#include "quell/adapters/channels/email/smtp_outcome.h"

#include "quell/adapters/curl/curl_errors.h"

namespace quell::email {

core::SendOutcome::Kind ClassifySmtp(CURLcode code, long reply) {
  using Kind = core::SendOutcome::Kind;
  if (code == CURLE_OK) return Kind::kSent;
  if (reply >= 400 && reply < 500) return Kind::kRetry;
  if (reply >= 500 && reply < 600) return Kind::kPermanent;
  const core::Error error{curl::CurlErrorCode(code), ""};
  return error.IsRetryable() ? Kind::kRetry : Kind::kPermanent;
}

}  // namespace quell::email
