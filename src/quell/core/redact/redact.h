#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace quell::core {

struct RedactOptions {
  // Bytes kept of one free-text value after redaction; the rest becomes "…[cut N bytes]". The
  // cut never falls inside a UTF-8 sequence. 0 keeps everything.
  size_t max_text = 500;
  // Key prefixes besides the built-in ones (ifr_, sk-, ghp_, AKIA, ...): a token starting with
  // one is a secret when the rest looks generated (a digit, or 20+ mixed-case characters).
  std::vector<std::string> extra_secret_prefixes;
  // The catch-all for long random-looking tokens. Off for labels, where such a token is an id
  // (a pod's, a user's) that keys and routing need, and a credential is caught by its name.
  bool random_tokens = true;
};

// What Redact removed, for tests and metrics. The Redact overload adds to it, so one value can
// count over every field of an evidence record.
struct RedactStats {
  uint32_t emails = 0;
  uint32_t phones = 0;
  uint32_t cards = 0;
  uint32_t secrets = 0;
  uint64_t cut_bytes = 0;
};

// Replaces personal data and secrets in free text taken from an error tracker, before it is
// stored or sent: e-mail addresses -> "[email]", phone numbers -> "[phone]", Luhn-valid card
// numbers -> "[card]", and secrets -> "[secret]" (Bearer and Authorization values, values of
// secret-looking keys, known key prefixes, JWTs, AWS key ids, long random-looking tokens). Then
// cuts to options.max_text. Total and linear in text.size(); bytes that are not valid UTF-8 pass
// through. Hex strings (commit SHAs, digests, trace ids, UUIDs) are kept: they carry the
// debugging value and are not personal data. See redact.cc for what is deliberately kept.
std::string Redact(std::string_view text, const RedactOptions& options);
std::string Redact(std::string_view text, const RedactOptions& options, RedactStats& stats);

// True when `text` holds personal data the evidence passes find: an e-mail address, a
// Luhn-valid card number or a phone number. Secrets and random-looking tokens are not asked
// about: an id upstream made random is not personal. Cheap for text without '@' or 7 digits.
bool HoldsPersonalData(std::string_view text);

// Upstream error text (a source's or a provider's own words, and the URLs quell names with them)
// as it may be logged, stored or shown: every URL rendered by RedactUrl (redact_url.h), then
// Redact, then cut to `max_bytes` bytes on a character boundary (0: not cut). The one redaction
// of error text: poll errors (logs, /v1/sources, the page), outbox errors and the timeline,
// the heartbeat's failure reason.
inline constexpr size_t kMaxErrorText = 2000;
std::string RedactErrorText(std::string_view text, size_t max_bytes = kMaxErrorText);

// Who acked, as an outsider named them (a Slack user, a PagerDuty agent, a name typed on an ack
// link's page) before it is stored, logged or shown: one line (control bytes become a blank,
// blanks collapse) of UTF-8 (a byte that is not becomes U+FFFD), redacted as Redact does (an e-mail
// address becomes "[email]", a secret
// "[secret]"; ids are kept), cut to kMaxActorName bytes on a character boundary. May be empty.
inline constexpr size_t kMaxActorName = 64;
std::string RedactActorName(std::string_view name);

// True for a field, tag or header name whose value is a credential: it contains password,
// passwd, secret, token, api_key, apikey, access_key, private_key, authorization, cookie,
// session or credential, ignoring case and '-' versus '_'; or it is "auth".
bool LooksSecretKey(std::string_view name);

}  // namespace quell::core
