#include "quell/core/ports/channel.h"

namespace quell::core {

SendOutcome::Kind ClassifyHttpStatus(int status) {
  if (status >= 200 && status < 300) return SendOutcome::Kind::kSent;
  if (status == 408 || status == 409 || status == 425 || status == 429 || status >= 500) {
    return SendOutcome::Kind::kRetry;
  }
  return SendOutcome::Kind::kPermanent;
}

bool IsThrottleStatus(int status) { return status == 429 || status == 503; }

}  // namespace quell::core
