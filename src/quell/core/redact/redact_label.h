#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/redact/redact.h"

namespace quell::core {

// "pii-" and the first 12 hex digits of the SHA-256 of `value`: what stands for a value holding
// personal data. Stable across polls and processes and distinct per value, so a key or label
// still dedupes, groups and routes, but carries nothing an operator must not see.
void AppendPseudonym(std::string& out, std::string_view value);
bool IsPseudonym(std::string_view value);

// Appends a label's value as it is stored, shown, sent and keyed. The one rule for every label
// (pushed labels, and the values a key template renders):
//   - a name that looks like a credential (LooksSecretKey: password, token, api_key, ...)
//     gives "[secret]" whatever the value, so nothing derived from a password is kept;
//   - a value holding a secret (a secret-looking key=value, a Bearer token, a prefixed API key,
//     a JWT, a password in a URL) gives Redact's text, each secret as "[secret]";
//   - a value holding personal data (HoldsPersonalData: an e-mail address, a phone or card
//     number) gives its pseudonym, which keeps keys made from it as they always were;
//   - anything else, and a pseudonym, is kept (so redacting twice is redacting once).
// Long random-looking tokens are kept: in a label they are ids. `options` gives extra key
// prefixes; its max_text is not applied (a key bounds itself).
void AppendRedactedLabelValue(std::string& out, std::string_view name, std::string_view value,
                              const RedactOptions& options);
std::string RedactLabelValue(std::string_view name, std::string_view value,
                             const RedactOptions& options);

// Every value of `labels` (name-value pairs, core::Labels) by RedactLabelValue; names are kept.
void RedactLabels(std::vector<std::pair<std::string, std::string>>& labels,
                  const RedactOptions& options);

}  // namespace quell::core
