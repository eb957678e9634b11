#pragma once

#include <string>
#include <string_view>

namespace quell::core {

// `url` as it may be shown in an error, a log line, a stored row or a page. A URL's query is
// where webhook keys, API keys and signatures ride, and nothing tells a key from a page number,
// so every query parameter keeps its name and loses its value:
// "?apikey=[redacted]&limit=[redacted]" (an empty value stays empty, a parameter without '='
// becomes "[redacted]"). A fragment becomes
// "#[redacted]", and the userinfo ("user:password@", or a token alone before '@') is dropped.
// Scheme, host, port and path are kept, so the reader still sees where; where the path itself is
// the credential (chat webhooks, bot tokens) a channel names a label instead
// (HttpRequest::label_url). Text without "://" keeps everything before its '?' and '#'.
std::string RedactUrl(std::string_view url);

// `text` with every URL in it ("scheme://...") rendered by RedactUrl; the rest unchanged. A URL
// ends at whitespace, a control character, a quote, a backslash, '<' or '>', and leaves a
// trailing '.', ',', ';', ':', '!' or ')' to the text around it. Linear in text.size().
std::string RedactUrlsIn(std::string_view text);

}  // namespace quell::core
