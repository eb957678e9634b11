#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "quell/adapters/channels/http_timeouts.h"

namespace quell::channels {

// Whether a webhook's requests carry X-Quell-Signature. Signing is the default; a receiver
// that checks nothing (a first trial against a request bin, a chat bridge) is said so
// explicitly, and `when_set` lets one config serve both: signed once the variable is set.
enum class WebhookSigning : uint8_t {
  kRequired,  // secret_env / secret_file must resolve, or `quell dispatch` refuses to start
  kWhenSet,   // secret_env unset: send unsigned, and say so at every start
  kOff,       // never signed; a secret reference is a contradiction
};

// `type: webhook`: a signed JSON POST per message.
struct WebhookSettings {
  std::string url;  // where to POST, http:// or https://
  WebhookSigning signing = WebhookSigning::kRequired;
  // The HMAC-SHA256 key shared with the receiver (at least 16 bytes when signing), from
  // secret_env / secret_file, never inline; empty: unsigned (only when signing is not
  // kRequired).
  std::string secret;
  HttpTimeouts timeouts;      // the builder's, from the channel's delivery settings
  size_t group_limit = 1000;  // the builder's: members a group message's body lists
};

// Whether the channel's requests carry X-Quell-Signature: always under kRequired (a missing
// key is then refused), under kWhenSet once the secret resolved, never under kOff.
inline bool Signs(const WebhookSettings& settings) {
  return settings.signing == WebhookSigning::kRequired ||
         (settings.signing == WebhookSigning::kWhenSet && !settings.secret.empty());
}

}  // namespace quell::channels
