#include "quell/adapters/channels/email/email_channel.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <string_view>

#include "quell/adapters/channels/email/email_kind.h"
#include "quell/adapters/channels/email/message_id.h"
#include "quell/adapters/channels/email/mime_message.h"
#include "quell/adapters/channels/email/smtp_outcome.h"
#include "quell/adapters/curl/curl_errors.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/redact/redact_url.h"

namespace quell::email {
namespace {

using core::ErrorCode;
using core::MakeError;
using core::SendOutcome;

CURLcode GlobalInit() {
  // Not thread-safe and must come first; never undone (other code may use libcurl too).
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  return result;
}

long TimeoutMs(core::Duration d) {
  const int64_t ms = std::chrono::ceil<std::chrono::milliseconds>(d).count();
  return static_cast<long>(std::clamp<int64_t>(ms, 1, std::numeric_limits<long>::max()));
}

struct Upload {
  std::string_view rest;
};

size_t ReadMessage(char* buffer, size_t size, size_t count, void* user) {
  auto* upload = static_cast<Upload*>(user);
  const size_t n = std::min(size * count, upload->rest.size());
  std::memcpy(buffer, upload->rest.data(), n);
  upload->rest.remove_prefix(n);
  return n;
}

// Keeps the server's last 4xx or 5xx reply line: the provider's words for an error message. Only
// what the server sent is looked at; what the client sent (AUTH carries the credentials) never is.
int KeepReply(CURL* /*handle*/, curl_infotype type, char* data, size_t size, void* user) {
  if (type != CURLINFO_HEADER_IN) return 0;
  std::string_view line(data, size);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  // Only refusals: after one, libcurl sends QUIT, and "221 Bye" would hide the reason.
  if (!line.empty() && (line[0] == '4' || line[0] == '5')) {
    static_cast<std::string*>(user)->assign(line.substr(0, 300));
  }
  return 0;
}

struct CurlDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

bool IsSafeDomain(std::string_view domain) {
  if (domain.empty()) return false;
  return std::all_of(domain.begin(), domain.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.';
  });
}

}  // namespace

core::Result<std::unique_ptr<EmailChannel>> EmailChannel::Create(EmailSettings settings,
                                                                 core::Clock& clock) {
  const std::string where = "channel " + settings.name + ": ";
  const std::string_view url = settings.url;
  if (url.rfind("smtp://", 0) != 0 && url.rfind("smtps://", 0) != 0) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        where + "url must start with smtp:// or smtps://, got \"" + core::RedactUrl(url) + "\"");
  }
  if (!IsSafeHeaderValue(settings.from) || EnvelopeAddress(settings.from).empty()) {
    return MakeError(ErrorCode::kInvalidArgument, where + "from must be one mailbox on one line");
  }
  if (settings.to.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, where + "to needs at least one address");
  }
  for (const std::string& to : settings.to) {
    if (!IsSafeHeaderValue(to) || EnvelopeAddress(to).empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       where + "to has an empty or multi-line address");
    }
  }
  if (!settings.password.empty() && settings.username.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, where + "a password needs a username");
  }
  if (!IsSafeDomain(settings.message_id_domain)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     where + "message_id_domain must be a host name, got \"" +
                         settings.message_id_domain + "\"");
  }
  if (GlobalInit() != CURLE_OK) {
    return MakeError(ErrorCode::kInternal, where + "curl_global_init failed");
  }
  return std::unique_ptr<EmailChannel>(new EmailChannel(std::move(settings), clock));
}

EmailChannel::EmailChannel(EmailSettings settings, core::Clock& clock)
    : settings_(std::move(settings)),
      clock_(clock),
      envelope_from_(EnvelopeAddress(settings_.from)) {
  for (const std::string& to : settings_.to) envelope_to_.push_back(EnvelopeAddress(to));
}

std::string EmailChannel::BuildMessage(const core::Delivery& delivery, core::WallTime now) const {
  const core::OutboxRow& row = delivery.row;
  const std::string& domain = settings_.message_id_domain;
  MailParts parts;
  parts.from = settings_.from;
  parts.to = settings_.to;
  parts.subject = delivery.message.subject;
  parts.body = delivery.message.body;
  parts.date = now;
  parts.message_id = MessageIdFor(row.idempotency_key, domain);
  const std::string anchor = ThreadAnchorId(row.key, row.generation, row.channel, domain);
  if (row.transition == core::TransitionKind::kOpen) {
    parts.references = anchor;
  } else {
    const bool known = !delivery.thread_remote_id.empty() &&
                       IsSafeHeaderValue(delivery.thread_remote_id) &&
                       delivery.thread_remote_id != anchor;
    parts.in_reply_to = known ? delivery.thread_remote_id : anchor;
    parts.references = known ? anchor + " " + delivery.thread_remote_id : anchor;
  }
  // RFC 3834: an automatic message, so vacation responders stay quiet.
  parts.extra_headers.emplace_back("Auto-Submitted", "auto-generated");
  const core::MessageKind kind = core::MessageKindOf(row);
  parts.extra_headers.emplace_back("X-Quell-Kind", core::MessageKindName(kind));
  if (kind != core::MessageKind::kDeadLetter) {
    parts.extra_headers.emplace_back("X-Quell-Transition", core::TransitionName(row.transition));
  }
  if (!delivery.message.severity.empty() && IsSafeHeaderValue(delivery.message.severity)) {
    parts.extra_headers.emplace_back("X-Quell-Severity", delivery.message.severity);
  }
  return BuildMimeMessage(parts);
}

std::string EmailChannel::Scrub(std::string text) const {
  const std::string& secret = settings_.password;
  if (secret.empty()) return text;
  constexpr std::string_view kMark = "[redacted]";  // searched past: it may hold the secret
  for (size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + kMark.size())) {
    text.replace(at, secret.size(), kMark);
  }
  return text;
}

SendOutcome EmailChannel::Send(const core::Delivery& delivery) {
  const std::string label = "channel " + settings_.name + " " + core::RedactUrl(settings_.url);
  const std::string message = BuildMessage(delivery, clock_.Now());
  std::unique_ptr<CURL, CurlDeleter> handle(curl_easy_init());
  if (!handle) return SendOutcome::Retry(label + ": curl_easy_init failed");
  std::unique_ptr<curl_slist, SlistDeleter> recipients;
  for (const std::string& to : envelope_to_) {
    curl_slist* grown = curl_slist_append(recipients.get(), to.c_str());
    if (grown == nullptr) return SendOutcome::Retry(label + ": out of memory");
    (void)recipients.release();
    recipients.reset(grown);
  }
  Upload upload{message};
  std::string last_reply;
  char error_buffer[CURL_ERROR_SIZE] = {};
  CURL* h = handle.get();
  const bool implicit_tls = settings_.url.rfind("smtps://", 0) == 0;
  const auto set = [h](CURLoption option, auto value) {
    return curl_easy_setopt(h, option, value);
  };
  set(CURLOPT_URL, settings_.url.c_str());
  set(CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_ERRORBUFFER, error_buffer);
  set(CURLOPT_CONNECTTIMEOUT_MS, TimeoutMs(settings_.connect_timeout));
  set(CURLOPT_TIMEOUT_MS, TimeoutMs(settings_.timeout));
  if (!implicit_tls) {
    set(CURLOPT_USE_SSL,
        static_cast<long>(settings_.starttls == StartTls::kRequired ? CURLUSESSL_ALL
                                                                    : CURLUSESSL_TRY));
  }
  set(CURLOPT_SSL_VERIFYPEER, 1L);
  set(CURLOPT_SSL_VERIFYHOST, 2L);
  if (!settings_.ca_file.empty()) set(CURLOPT_CAINFO, settings_.ca_file.c_str());
  if (!settings_.username.empty()) set(CURLOPT_USERNAME, settings_.username.c_str());
  if (!settings_.password.empty()) set(CURLOPT_PASSWORD, settings_.password.c_str());
  set(CURLOPT_MAIL_FROM, envelope_from_.c_str());
  set(CURLOPT_MAIL_RCPT, recipients.get());
  set(CURLOPT_UPLOAD, 1L);
  set(CURLOPT_READFUNCTION, &ReadMessage);
  set(CURLOPT_READDATA, &upload);
  set(CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(message.size()));
  set(CURLOPT_DEBUGFUNCTION, &KeepReply);
  set(CURLOPT_DEBUGDATA, &last_reply);
  set(CURLOPT_VERBOSE, 1L);  // feeds KeepReply; prints nothing while a debug function is set

  const CURLcode code = curl_easy_perform(h);
  long reply = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &reply);
  const std::string message_id =
      MessageIdFor(delivery.row.idempotency_key, settings_.message_id_domain);
  const SendOutcome::Kind kind = ClassifySmtp(code, reply);
  if (kind == SendOutcome::Kind::kSent) return SendOutcome::Sent(message_id);
  std::string why = label + ": ";
  why += error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
  if (reply >= 400 && !last_reply.empty()) {
    why += "; server said \"" + last_reply + "\"";
  }
  why = Scrub(std::move(why));
  return kind == SendOutcome::Kind::kRetry ? SendOutcome::Retry(std::move(why))
                                           : SendOutcome::Permanent(std::move(why));
}

}  // namespace quell::email

namespace quell::channels {

core::Result<BuiltChannel> EmailKind::Build(Settings settings, const ChannelBuild& build) {
  settings.name = build.name;
  settings.ca_file = build.ca_file;
  settings.connect_timeout = build.timeouts.connect;
  settings.timeout = build.timeouts.total;
  return Built(email::EmailChannel::Create(std::move(settings), *build.clock));
}

}  // namespace quell::channels
