#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quell/adapters/channels/email/email_settings.h"
#include "quell/core/ports/channel.h"
#include "quell/core/ports/clock.h"

namespace quell::email {

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
