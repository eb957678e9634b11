#include "quell/core/redact/redact.h"
#include "quell/core/redact/redact_passes.h"
#include "quell/core/redact/redact_prefilter.h"

namespace quell::core {

bool HoldsPersonalData(std::string_view text) {
  namespace ri = redact_internal;
  const ri::TextShape shape = ri::ShapeOf(text);
  RedactStats stats;
  if (shape.at_sign) ri::RedactEmails(text, stats);
  if (shape.digits >= ri::kMinCardDigits) ri::RedactCards(text, stats);
  if (stats.emails == 0 && stats.cards == 0 && shape.digits >= ri::kMinPhoneDigits) {
    ri::RedactPhones(text, stats);
  }
  return stats.emails + stats.cards + stats.phones > 0;
}

}  // namespace quell::core
