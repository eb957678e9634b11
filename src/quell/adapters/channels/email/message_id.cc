#include "quell/adapters/channels/email/message_id.h"

#include "quell/core/ports/outbox_row.h"

namespace quell::email {

std::string MessageIdFor(std::string_view idempotency_key, std::string_view domain) {
  std::string id = "<";
  id.append(idempotency_key);
  id += '@';
  id.append(domain);
  id += '>';
  return id;
}

std::string ThreadAnchorId(std::string_view key, uint64_t generation, std::string_view channel,
                           std::string_view domain) {
  // Version 0 never names a real transition (every change bumps the version from 1 up), so
  // this digest cannot collide with a row's own idempotency key.
  std::string digest = core::OutboxIdempotencyKey(key, generation, 0, channel);
  std::string id = "<q1t-";
  id.append(digest.substr(3));  // the hex after "q1-"
  id += '@';
  id.append(domain);
  id += '>';
  return id;
}

}  // namespace quell::email
