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
// A group message carries one link for the whole group instead:
// "g1.<episode>.<expiry>.<channel>.<group key>.<mac>", channel and group key in unpadded
// base64url, the mac over "quell-group-ack\n<channel b64>\n<group key b64>\n<episode>\n<expiry>";
// it acks the members of that group's episode on that channel (core/delivery/callback_key.h's
// group alert), and nothing once the episode has ended.
namespace quell::channels {

struct AckClaim {
  std::string key;  // empty for a group's link
  uint64_t generation = 0;
  core::WallTime expires_at;
  // A group's link: the channel, group key and episode (never 0) it names.
  std::string channel;
  std::string group_key;
  uint64_t episode = 0;
  bool is_group() const { return episode != 0; }
};

class AckLinkSigner {
 public:
  // `secret` is at least 16 bytes (the config checks it); `public_url` has no trailing slash.
  AckLinkSigner(std::string secret, std::string public_url, core::Duration ttl);

  // The link for `key`'s `generation`, valid until `issued_at` + ttl.
  std::string Link(std::string_view key, uint64_t generation, core::WallTime issued_at) const;
  // The token part alone.
  std::string Token(std::string_view key, uint64_t generation, core::WallTime expires_at) const;

  // The link acking the members of (`channel`, `group_key`)'s `episode` (not 0), valid until
  // `issued_at` + ttl.
  std::string GroupLink(std::string_view channel, std::string_view group_key, uint64_t episode,
                        core::WallTime issued_at) const;
  std::string GroupToken(std::string_view channel, std::string_view group_key, uint64_t episode,
                         core::WallTime expires_at) const;

  // The claim `token` (an incident's or a group's) carries when its mac is ours and it has not
  // expired at `now`. kInvalidArgument for a token not of our shape, kPermissionDenied for a wrong
  // mac (forged, altered, or signed with another secret), kRejected for an expired one. Messages
  // never quote the mac. Compares in constant time.
  core::Result<AckClaim> Verify(std::string_view token, core::WallTime now) const;

 private:
  std::string Mac(std::string_view key, uint64_t generation, int64_t expiry) const;
  std::string GroupMac(std::string_view channel_b64, std::string_view group_key_b64,
                       uint64_t episode, int64_t expiry) const;
  core::Result<AckClaim> VerifyGroup(std::string_view token, core::WallTime now) const;

  std::string secret_;
  std::string public_url_;
  core::Duration ttl_;
};

}  // namespace quell::channels
