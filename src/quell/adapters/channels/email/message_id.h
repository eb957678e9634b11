#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace quell::email {

// "<IDEMPOTENCY_KEY@DOMAIN>": the same outbox row always gets the same Message-ID, so a resend
// after a lost reply is recognisably the same message (and a receiving MTA or client may drop
// the duplicate). The key ("q1-" + hex) is already a valid dot-atom.
std::string MessageIdFor(std::string_view idempotency_key, std::string_view domain);

// "<q1t-HEX@DOMAIN>" from (dedupe key, generation, channel): a thread id every message of one
// incident generation can derive on its own. Follow-ups reference it when the open's real
// Message-ID (Delivery::thread_remote_id) is not known, so they still thread with each other.
std::string ThreadAnchorId(std::string_view key, uint64_t generation, std::string_view channel,
                           std::string_view domain);

}  // namespace quell::email
