#include "quell/core/redact/redact.h"
#include "quell/core/redact/redact_url.h"

namespace quell::core {

std::string RedactErrorText(std::string_view text, size_t max_bytes) {
  RedactOptions options;
  options.max_text = max_bytes;
  // URLs first: a query value the text passes would not know for a secret ("?sig=...") is
  // gone before they run, and they still catch what the words around the URL hold.
  return Redact(RedactUrlsIn(text), options);
}

}  // namespace quell::core
