// Redaction runs as a fixed sequence of small linear passes rather than one regex: std::regex
// backtracks (slow, and deep recursion on long input), and small scanners can state exactly
// what they accept. See redact_passes.h for why the order is what it is.
//
// Deliberately kept (not redacted): timestamps, UUIDs and other hex ids, version strings,
// IP addresses, HTTP status codes and other small numbers, decimals, numbers without
// separators other than card-shaped ones, file paths and stack frames, and identifiers.
#include "quell/core/redact.h"

#include <string>

#include "quell/core/redact_passes.h"
#include "quell/core/utf8.h"

namespace quell::core {

std::string Redact(std::string_view text, const RedactOptions& options) {
  RedactStats ignored;
  return Redact(text, options, ignored);
}

std::string Redact(std::string_view text, const RedactOptions& options, RedactStats& stats) {
  namespace ri = redact_internal;
  std::string out = ri::RedactKeyValues(text, stats);
  out = ri::RedactKeyTokens(out, options.extra_secret_prefixes, stats);
  out = ri::RedactEmails(out, stats);
  out = ri::RedactCards(out, stats);
  out = ri::RedactPhones(out, stats);
  out = ri::RedactRandomTokens(out, stats);
  // Cutting after redacting, so a secret straddling the cut is never left half visible.
  if (options.max_text == 0 || out.size() <= options.max_text) return out;
  const size_t keep = Utf8CutPoint(out, options.max_text);
  const size_t cut = out.size() - keep;
  out.resize(keep);
  out.append("\xE2\x80\xA6[cut ");  // U+2026 HORIZONTAL ELLIPSIS
  out.append(std::to_string(cut));
  out.append(" bytes]");
  stats.cut_bytes += cut;
  return out;
}

}  // namespace quell::core
