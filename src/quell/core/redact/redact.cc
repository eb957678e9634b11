// Redaction runs as a fixed sequence of small linear passes rather than one regex: std::regex
// backtracks (slow, and deep recursion on long input), and small scanners can state exactly
// what they accept. See redact_passes.h for why the order is what it is.
//
// Deliberately kept (not redacted): timestamps, UUIDs and other hex ids, version strings,
// IP addresses, HTTP status codes and other small numbers, decimals, numbers without
// separators other than card-shaped ones, file paths and stack frames, and identifiers.
#include "quell/core/redact/redact.h"

#include <string>

#include "quell/core/redact/redact_passes.h"
#include "quell/core/redact/redact_prefilter.h"
#include "quell/core/text/utf8.h"

namespace quell::core {

std::string Redact(std::string_view text, const RedactOptions& options) {
  RedactStats ignored;
  return Redact(text, options, ignored);
}

std::string Redact(std::string_view text, const RedactOptions& options, RedactStats& stats) {
  namespace ri = redact_internal;
  // Each pass runs only when the text can hold what it looks for (redact_prefilter.h). One
  // shape of the input serves every pass: a pass keeps bytes, drops them or puts a bracketed
  // placeholder ("[secret]", "[email]", ...) in their place, so later text never has more digits
  // or '@' than the input, nor a token run of 32+ the input did not have.
  std::string out;
  std::string_view current = text;
  bool ran = false;
  const ri::TextShape shape = ri::ShapeOf(text);
  auto run = [&](auto&& pass) {
    out = pass(current);
    current = out;
    ran = true;
  };
  if (shape.key_value_cue) run([&](std::string_view t) { return ri::RedactKeyValues(t, stats); });
  if (ri::MayHoldKeyToken(current, options.extra_secret_prefixes)) {
    run([&](std::string_view t) {
      return ri::RedactKeyTokens(t, options.extra_secret_prefixes, stats);
    });
  }
  if (shape.at_sign) run([&](std::string_view t) { return ri::RedactEmails(t, stats); });
  if (shape.digits >= ri::kMinCardDigits) {
    run([&](std::string_view t) { return ri::RedactCards(t, stats); });
  }
  if (shape.digits >= ri::kMinPhoneDigits) {
    run([&](std::string_view t) { return ri::RedactPhones(t, stats); });
  }
  if (options.random_tokens && shape.longest_token >= ri::kMinRandomToken) {
    run([&](std::string_view t) { return ri::RedactRandomTokens(t, stats); });
  }
  if (!ran) out.assign(text);
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
