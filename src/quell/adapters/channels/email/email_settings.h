#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "quell/core/text/time.h"

namespace quell::email {

enum class StartTls { kRequired, kOptional };

// `type: email`: SMTP with STARTTLS or implicit TLS. name, ca_file and the two timeouts are
// the builder's, from the channel's name and delivery settings.
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

}  // namespace quell::email
