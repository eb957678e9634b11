#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quell/core/ports/channel.h"
#include "quell/core/ports/clock.h"

namespace quell::email {

enum class StartTls { kRequired, kOptional };

struct EmailSettings {
  std::string name = "email";  // the channel's name, for messages
  // smtp://host[:port][/ehlo-name] (STARTTLS per `starttls`) or smtps://host[:port] (TLS from
  // the first byte).
  std::string url;
  StartTls starttls = StartTls::kRequired;
  std::string ca_file;  // empty: the system's CA bundle; verification is never turned off
  std::string username;
  // The secret itself, resolved by the caller from its reference (env or file); it is handed to
  // libcurl and never appears in a message.
  std::string password;
  std::string from;             // "quell <alerts@example.com>"
  std::vector<std::string> to;  // one or more mailboxes
  std::string message_id_domain = "quell.invalid";
  core::Duration connect_timeout = std::chrono::seconds(10);
  core::Duration timeout = std::chrono::seconds(60);  // the whole transfer
};

// Alert e-mail over SMTP with libcurl: one connection and one message per Send. The Message-ID
// is MessageIdFor(row.idempotency_key) and is the remote id; follow-ups (renotify, resolve) set
// In-Reply-To to the open's Message-ID (Delivery::thread_remote_id) and every message of a
// generation References its ThreadAnchorId, so clients show one thread per incident.
// Thread-safe: Send shares nothing between calls.
class EmailChannel : public core::Channel {
 public:
  // kInvalidArgument names the setting that is wrong (never the password's value).
  static core::Result<std::unique_ptr<EmailChannel>> Create(EmailSettings settings,
                                                            core::Clock& clock);

  core::SendOutcome Send(const core::Delivery& delivery) override;

  // The RFC 5322 text Send would transmit at `now`; for tests and `quell` dry runs.
  std::string BuildMessage(const core::Delivery& delivery, core::WallTime now) const;

 private:
  EmailChannel(EmailSettings settings, core::Clock& clock);
  std::string Scrub(std::string text) const;  // removes the password, should it ever appear

  EmailSettings settings_;
  core::Clock& clock_;
  std::string envelope_from_;
  std::vector<std::string> envelope_to_;
};

}  // namespace quell::email
