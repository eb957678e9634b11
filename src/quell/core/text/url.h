#pragma once

#include <string>
#include <string_view>

namespace quell::core {

// Percent-encodes every byte of `text` except RFC 3986's unreserved characters
// (A-Z a-z 0-9 - . _ ~), with upper-case hex. Safe for a query parameter's name or value and
// for one path segment. A space becomes %20, not '+': '+' means a space only in HTML forms.
std::string UrlEncode(std::string_view text);
// `text` with every byte `keep` refuses written as %XX (uppercase hex): quell's one
// percent-encoder, which UrlEncode and the links messages carry (templates::LinkableUrl) share.
std::string PercentEncode(std::string_view text, bool (*keep)(unsigned char));

// A store URL fit for a message: the password of "scheme://user:password@host/..." replaced by
// "****", and every query parameter's value by "[redacted]" (its name kept, as RedactUrl in
// core/redact/redact_url.h does). User, host, port and database are kept, so the reader still
// sees which database was meant.
std::string MaskUrlPassword(std::string_view url);

// Appends `query` (what follows '?', without the fragment) with each parameter's value replaced
// by "[redacted]" and its name kept, as every shown URL has it (core/redact's RedactUrl).
void AppendRedactedQuery(std::string& out, std::string_view query);

}  // namespace quell::core
