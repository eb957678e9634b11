#pragma once

// Internal to Redact: one linear pass per kind of data, run in the order listed. The order
// matters: key/value context first (it knows "password=4111..." is a secret, not a card), cards
// before phones (a 15-digit card would also read as a phone), high-entropy tokens last (so the
// specific passes count what they find).

#include <string>
#include <string_view>
#include <vector>

#include "quell/core/redact.h"

namespace quell::core::redact_internal {

// Values of secret-looking keys (key=value, "key": "value", key: value, Authorization and
// Cookie headers), the token after "Bearer" and the password in scheme://user:password@host.
std::string RedactKeyValues(std::string_view text, RedactStats& stats);

// Tokens with a known API-key prefix (built in, plus `extra_prefixes`), AWS key ids and JWTs.
std::string RedactKeyTokens(std::string_view text, const std::vector<std::string>& extra_prefixes,
                            RedactStats& stats);

std::string RedactEmails(std::string_view text, RedactStats& stats);
std::string RedactCards(std::string_view text, RedactStats& stats);
std::string RedactPhones(std::string_view text, RedactStats& stats);

// Long tokens that look generated: letters and digits mixed the way random text mixes them.
std::string RedactRandomTokens(std::string_view text, RedactStats& stats);

}  // namespace quell::core::redact_internal
