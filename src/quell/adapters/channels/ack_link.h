#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "quell/core/result.h"
#include "quell/core/text/time.h"

// Signed ack links (docs/http.md): public_url + "/v1/ack/<token>", the token
// "v1.<generation>.<expiry>.<key>.<mac>" with the key in unpadded base64url, the expiry in Unix
// seconds and the mac the first 32 hex digits (128 bits) of the HMAC-SHA256, keyed with the
// ack-link secret, of "quell-ack\n<key>\n<generation>\n<expiry>". Anyone holding the link may
// ack that one generation of that one incident until it expires, and nothing else.
namespace quell::channels {

struct AckClaim {
  std::string key;
  uint64_t generation = 0;
  core::WallTime expires_at;
};

class AckLinkSigner {
 public:
  // `secret` is at least 16 bytes (the config checks it); `public_url` has no trailing slash.
  AckLinkSigner(std::string secret, std::string public_url, core::Duration ttl);

  // The link for `key`'s `generation`, valid until `issued_at` + ttl.
  std::string Link(std::string_view key, uint64_t generation, core::WallTime issued_at) const;
  // The token part alone.
  std::string Token(std::string_view key, uint64_t generation, core::WallTime expires_at) const;

  // The claim `token` carries when its mac is ours and it has not expired at `now`.
  // kInvalidArgument for a token not of our shape, kPermissionDenied for a wrong mac (forged,
  // altered, or signed with another secret), kRejected for an expired one. Messages never
  // quote the mac. Compares in constant time.
  core::Result<AckClaim> Verify(std::string_view token, core::WallTime now) const;

 private:
  std::string Mac(std::string_view key, uint64_t generation, int64_t expiry) const;

  std::string secret_;
  std::string public_url_;
  core::Duration ttl_;
};

}  // namespace quell::channels
