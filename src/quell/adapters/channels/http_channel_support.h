#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "quell/adapters/channels/http_timeouts.h"
#include "quell/core/ports/channel.h"
#include "quell/core/ports/http_client.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

// What the HTTP channels share: settings checks, text limits and reading a provider's answer.
namespace quell::channels {

// kInvalidArgument "<channel>: <setting> ..." unless `url` is an absolute http:// or https://
// URL with a host and no whitespace.
core::Status CheckHttpUrl(std::string_view channel, std::string_view setting, std::string_view url);
// kInvalidArgument unless both timeouts are positive and connect <= total.
core::Status CheckTimeouts(std::string_view channel, const HttpTimeouts& timeouts);
// kInvalidArgument "<channel>: <setting> is required" when `value` is empty, or "... has a
// line break" when it could not travel in a header. Never quotes the value.
core::Status CheckSetting(std::string_view channel, std::string_view setting,
                          std::string_view value);

// A request with the channel's timeouts and a JSON or form body.
core::HttpRequest PostRequest(std::string url, std::string content_type, std::string body,
                              const HttpTimeouts& timeouts);

// At most `max_bytes` of `text`, cut at a character boundary and ended with "…" when cut.
std::string Truncate(std::string_view text, size_t max_bytes);

// The Retry-After the response asks for. An HTTP-date is read against the response's own Date
// header (the server's clock, which is what the date was written against); without one only
// delay-seconds count.
std::optional<core::Duration> RetryAfterOf(const core::HttpResponse& response);

// "<channel>: HTTP <status>[: <detail>]", with every occurrence of `secret` (when not empty)
// replaced, so a provider that echoes a credential cannot put it in the outbox.
std::string ErrorText(std::string_view channel, int status, std::string_view detail,
                      std::string_view secret);

// The first line of a body, at most 200 bytes: enough to show an error, never a whole page.
std::string BodyExcerpt(std::string_view body);

// The outcome ClassifyHttpStatus gives `response`, with `error` and, for a retry, the
// response's Retry-After. For 2xx the caller decides (it needs the remote id).
core::SendOutcome FailureOutcome(const core::HttpResponse& response, std::string error);

// For chat webhooks whose URL is the credential (teams, discord, mattermost): the URL's scheme
// and host followed by "/[redacted]", for HttpRequest::label_url, so a timeout's message
// (which lands in the outbox) names where, never the token in the path or the signature in the
// query.
std::string CredentialUrlLabel(std::string_view url);

}  // namespace quell::channels
