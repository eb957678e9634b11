#pragma once

// Internal to Redact: one linear pass per kind of data, run in the order listed. The order
// matters: key/value context first (it knows "password=4111..." is a secret, not a card), cards
// before phones (a 15-digit card would also read as a phone), high-entropy tokens last (so the
// specific passes count what they find).

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/redact/redact.h"

namespace quell::core::redact_internal {

// ifr_ covers Infrai's ifr_pk_ and every other ifr_ key. pk_ keys are publishable, yet they
// identify the account, and nothing in an alert needs them.
inline constexpr std::array<std::string_view, 21> kKeyPrefixes = {
    "ifr_",     "sk-",   "sk_live_", "sk_test_", "pk_live_", "pk_test_",    "rk_live_",
    "rk_test_", "xoxa-", "xoxb-",    "xoxp-",    "xoxr-",    "ghp_",        "gho_",
    "ghu_",     "ghs_",  "ghr_",     "glpat-",   "AIza",     "github_pat_", "npm_"};

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
