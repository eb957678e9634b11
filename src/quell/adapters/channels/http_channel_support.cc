#include "quell/adapters/channels/http_channel_support.h"

#include <utility>

#include "quell/core/delivery/retry_after.h"
#include "quell/core/text/utf8.h"

namespace quell::channels {
namespace {

using core::ErrorCode;

core::Error Invalid(std::string_view channel, std::string_view setting, std::string_view what) {
  std::string message(channel);
  message += ": ";
  message += setting;
  message += ' ';
  message += what;
  return core::MakeError(ErrorCode::kInvalidArgument, std::move(message));
}

}  // namespace

core::Status CheckHttpUrl(std::string_view channel, std::string_view setting,
                          std::string_view url) {
  if (url.empty()) return Invalid(channel, setting, "is required");
  size_t rest = 0;
  if (url.starts_with("https://")) {
    rest = 8;
  } else if (url.starts_with("http://")) {
    rest = 7;
  } else {
    return Invalid(channel, setting, "must start with http:// or https://");
  }
  if (url.find_first_of(" \t\r\n") != std::string_view::npos) {
    return Invalid(channel, setting, "must not contain whitespace");
  }
  if (rest >= url.size() || url[rest] == '/' || url[rest] == '?' || url[rest] == '#') {
    return Invalid(channel, setting, "has no host");
  }
  return {};
}

core::Status CheckTimeouts(std::string_view channel, const HttpTimeouts& timeouts) {
  if (timeouts.connect <= core::Duration::zero() || timeouts.total <= core::Duration::zero()) {
    return Invalid(channel, "timeouts", "must be positive");
  }
  if (timeouts.connect > timeouts.total) {
    return Invalid(channel, "connect timeout", "must not exceed the total timeout");
  }
  return {};
}

core::Status CheckSetting(std::string_view channel, std::string_view setting,
                          std::string_view value) {
  if (value.empty()) return Invalid(channel, setting, "is required");
  if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
    return Invalid(channel, setting, "must not contain a line break or NUL");
  }
  return {};
}

core::HttpRequest PostRequest(std::string url, std::string content_type, std::string body,
                              const HttpTimeouts& timeouts) {
  core::HttpRequest request;
  request.method = "POST";
  request.url = std::move(url);
  request.headers.emplace_back("Content-Type", std::move(content_type));
  request.body = std::move(body);
  request.connect_timeout = timeouts.connect;
  request.total_timeout = timeouts.total;
  return request;
}

std::string Truncate(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …
  if (max_bytes < kEllipsis.size())
    return std::string(text.substr(0, core::Utf8CutPoint(text, max_bytes)));
  std::string out(text.substr(0, core::Utf8CutPoint(text, max_bytes - kEllipsis.size())));
  out += kEllipsis;
  return out;
}

std::optional<core::Duration> RetryAfterOf(const core::HttpResponse& response) {
  const std::string_view value = core::FindHeader(response.headers, "Retry-After");
  if (value.empty()) return std::nullopt;
  // An HTTP-date seen from the epoch is that date's own time since the epoch.
  core::WallTime server_now{};
  if (const std::string_view date = core::FindHeader(response.headers, "Date"); !date.empty()) {
    if (const auto since_epoch = core::ParseRetryAfter(date, core::WallTime{})) {
      server_now = core::WallTime{} + *since_epoch;
    }
  }
  const bool delay_seconds = value.find_first_not_of("0123456789 \t") == std::string_view::npos;
  if (server_now == core::WallTime{} && !delay_seconds) return std::nullopt;
  return core::ParseRetryAfter(value, server_now);
}

std::string ErrorText(std::string_view channel, int status, std::string_view detail,
                      std::string_view secret) {
  std::string text(channel);
  text += ": HTTP ";
  text += std::to_string(status);
  if (!detail.empty()) {
    text += ": ";
    text += detail;
  }
  if (!secret.empty()) {
    // The search goes on past the mark: a secret found inside "[redacted]" must not loop.
    constexpr std::string_view kMark = "[redacted]";
    for (size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + kMark.size())) {
      text.replace(at, secret.size(), kMark);
    }
  }
  return text;
}

std::string BodyExcerpt(std::string_view body) {
  const size_t line_end = body.find_first_of("\r\n");
  if (line_end != std::string_view::npos) body = body.substr(0, line_end);
  return Truncate(body, 200);
}

core::SendOutcome FailureOutcome(const core::HttpResponse& response, std::string error) {
  if (core::ClassifyHttpStatus(response.status) == core::SendOutcome::Kind::kPermanent) {
    return core::SendOutcome::Permanent(std::move(error));
  }
  if (core::IsThrottleStatus(response.status)) {
    return core::SendOutcome::Throttled(std::move(error), RetryAfterOf(response));
  }
  return core::SendOutcome::Retry(std::move(error), RetryAfterOf(response));
}

std::string CredentialUrlLabel(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return "[redacted]";
  const size_t authority = scheme_end + 3;
  std::string_view host = url.substr(authority, url.find_first_of("/?#", authority) - authority);
  if (const size_t at = host.rfind('@'); at != std::string_view::npos) host.remove_prefix(at + 1);
  std::string label(url.substr(0, authority));
  label += host;
  label += "/[redacted]";
  return label;
}

}  // namespace quell::channels
