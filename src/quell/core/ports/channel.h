#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/ports/http_client.h"
#include "quell/core/ports/message.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A link a message carries beside its text, e.g. a pushed alert's runbook.
struct MessageLink {
  std::string url;  // an absolute http(s) URL
  std::string text;
};

// A message rendered for one channel from an outbox row's payload (the incident snapshot).
struct RenderedMessage {
  std::string subject;   // e-mail subject, Slack/PagerDuty summary, first line elsewhere
  std::string body;      // the channel's text: plain text, Slack mrkdwn, SMS text
  std::string severity;  // "critical", "error", "warning" or "info"; from the condition
  // The body writes its links in the channel's own markup; a channel with a field of its own for
  // links (PagerDuty's links, ntfy's actions) sends these there as well.
  std::vector<MessageLink> links = {};
};

// One delivery attempt of one outbox row.
struct Delivery {
  OutboxRow row;  // idempotency_key, key, generation, version, transition, payload, attempts
  RenderedMessage message;
  // The remote id the first sent message of this incident generation got on this channel
  // (Slack ts, e-mail Message-ID, PagerDuty dedup key), so follow-ups thread under it; empty
  // for the open itself or when it was never sent.
  std::string thread_remote_id;
  // The row's payload as the dispatcher read it, once (MessageRenderer::Decode): channels take
  // what they send of the incident, the group or the notice from here, never from row.payload's
  // JSON (a channel embedding the stored snapshot as it is may copy the text).
  Message content;
};

// How one attempt ended. kRetry is transient (timeouts, resets, 408, 409, 425, 429, 5xx): the
// dispatcher backs off, honouring retry_after. kPermanent (other 4xx, a rejected address) goes
// dead at once. Errors name the channel and the provider's words, never a credential.
struct SendOutcome {
  enum class Kind : uint8_t { kSent, kRetry, kPermanent };
  Kind kind = Kind::kSent;
  std::string remote_message_id;  // kSent: the provider's id, kept on the row
  std::string error;              // otherwise
  std::optional<Duration> retry_after;
  // kRetry: the provider asked us to slow down (HTTP 429 or 503, Slack's "ratelimited"). It
  // accepted nothing and rejected nothing, so the retry is bounded by a time budget rather
  // than by the channel's attempt limit.
  bool throttled = false;

  static SendOutcome Sent(std::string remote_id) {
    return SendOutcome{Kind::kSent, std::move(remote_id), {}, std::nullopt, false};
  }
  static SendOutcome Retry(std::string why, std::optional<Duration> after = std::nullopt) {
    return SendOutcome{Kind::kRetry, {}, std::move(why), after, false};
  }
  static SendOutcome Throttled(std::string why, std::optional<Duration> after = std::nullopt) {
    return SendOutcome{Kind::kRetry, {}, std::move(why), after, true};
  }
  static SendOutcome Permanent(std::string why) {
    return SendOutcome{Kind::kPermanent, {}, std::move(why), std::nullopt, false};
  }
};

// The outcome an HTTP status implies: 2xx sent, 408/409/425/429/5xx retry, other 4xx
// permanent. The caller fills the remote id and the Retry-After it read.
SendOutcome::Kind ClassifyHttpStatus(int status);

// 429 Too Many Requests and 503 Service Unavailable: the provider is shedding load and says
// so (often with a Retry-After); see SendOutcome::throttled.
bool IsThrottleStatus(int status);

// A channel that speaks HTTP (webhook, Slack, Twilio, PagerDuty): it only builds the request
// for a delivery and reads the provider's answer; the dispatcher owns the transport, so many
// sends share one thread (libcurl multi). Both methods are const and thread-safe.
class HttpChannel {
 public:
  virtual ~HttpChannel() = default;
  // The one request this delivery makes, carrying the row's idempotency key in whatever form
  // the provider honours; `now` stamps signatures. kInvalidArgument: the delivery cannot be
  // encoded (goes dead at once).
  virtual Result<HttpRequest> Encode(const Delivery& delivery, WallTime now) const = 0;
  // What the provider's answer means: sent (with its message id), retry, or permanent.
  virtual SendOutcome Decode(const Delivery& delivery, const HttpResponse& response) const = 0;
};

// A channel with a protocol of its own (SMTP): Send makes exactly one blocking attempt and
// carries the idempotency key as the protocol allows. Thread-safe: the dispatcher runs several
// sends at once on its worker threads.
class Channel {
 public:
  virtual ~Channel() = default;
  virtual SendOutcome Send(const Delivery& delivery) = 0;
};

// Renders an outbox row's payload for a channel type ("webhook", "slack", "email", "sms",
// "pagerduty"). kInvalidArgument when the payload or the template cannot be rendered.
// Thread-safe: the dispatcher renders a batch on several threads.
class MessageRenderer {
 public:
  virtual ~MessageRenderer() = default;
  virtual Result<RenderedMessage> Render(std::string_view channel_type,
                                         const OutboxRow& row) const = 0;
  // As Render, for a message sent at `sent_at`: its time phrases ("failing for 45s") count to
  // then, not to the transition's time, since a row may wait (an escalation tier, a group, a
  // retry) long after it was written. The default ignores the time.
  virtual Result<RenderedMessage> RenderAt(std::string_view channel_type, const OutboxRow& row,
                                           WallTime /*sent_at*/) const {
    return Render(channel_type, row);
  }
  // The row's payload read into its typed form, once per claimed row (the dispatcher keeps it
  // in Delivery::content for the channel). kInvalidArgument when the payload cannot be read; a
  // renderer that renders from the row alone reads nothing (this default).
  virtual Result<Message> Decode(const OutboxRow& /*row*/) const { return Message{}; }
  // As RenderAt, from the message Decode read; the default renders the row as RenderAt does.
  virtual Result<RenderedMessage> RenderMessage(std::string_view channel_type, const OutboxRow& row,
                                                const Message& /*message*/,
                                                WallTime sent_at) const {
    return RenderAt(channel_type, row, sent_at);
  }
};

}  // namespace quell::core
