#include "quell/adapters/channels/ack_link.h"

#include <openssl/crypto.h>

#include <array>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "quell/adapters/channels/webhook/webhook_signature.h"
#include "quell/core/text/base64.h"

namespace quell::channels {
namespace {

constexpr size_t kMacDigits = 32;

std::string Base64Url(std::string_view bytes) {
  std::string out;
  core::AppendBase64(out, bytes, core::Base64Alphabet::kUrlSafe);
  return out;
}

std::optional<std::string> FromBase64Url(std::string_view text) {
  return core::DecodeBase64Url(text);
}

template <typename T>
std::optional<T> Number(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

core::Error Malformed() {
  return core::MakeError(core::ErrorCode::kInvalidArgument,
                         "this is not a quell ack link (the token is malformed or cut short)");
}

int64_t UnixSeconds(core::WallTime at) {
  return std::chrono::duration_cast<std::chrono::seconds>(at.time_since_epoch()).count();
}

// `token` split at its dots into exactly `n` parts; empty when it has another number of them.
std::vector<std::string_view> Parts(std::string_view token, size_t n) {
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t dot = token.find('.');
    parts.push_back(token.substr(0, dot));
    if (dot == std::string_view::npos) break;
    if (parts.size() == n) return {};  // more dots than parts
    token.remove_prefix(dot + 1);
  }
  if (parts.size() != n) return {};
  return parts;
}

core::Error Forged() {
  return core::MakeError(core::ErrorCode::kPermissionDenied,
                         "this ack link's signature is not valid (altered, or signed with "
                         "another secret)");
}

core::Error Expired(core::WallTime at) {
  return core::MakeError(core::ErrorCode::kRejected,
                         "this ack link expired at " + core::FormatRfc3339(at) +
                             "; ack with `quell incidents ack` or a newer message's link");
}

}  // namespace

AckLinkSigner::AckLinkSigner(std::string secret, std::string public_url, core::Duration ttl)
    : secret_(std::move(secret)), public_url_(std::move(public_url)), ttl_(ttl) {}

std::string AckLinkSigner::Mac(std::string_view key, uint64_t generation, int64_t expiry) const {
  std::string text = "quell-ack\n";
  text += key;
  text += '\n';
  text += std::to_string(generation);
  text += '\n';
  text += std::to_string(expiry);
  return HmacSha256Hex(secret_, text).substr(0, kMacDigits);
}

std::string AckLinkSigner::GroupMac(std::string_view channel_b64, std::string_view group_key_b64,
                                    uint64_t episode, int64_t expiry) const {
  std::string text = "quell-group-ack\n";
  text += channel_b64;
  text += '\n';
  text += group_key_b64;
  text += '\n';
  text += std::to_string(episode);
  text += '\n';
  text += std::to_string(expiry);
  return HmacSha256Hex(secret_, text).substr(0, kMacDigits);
}

std::string AckLinkSigner::GroupToken(std::string_view channel, std::string_view group_key,
                                      uint64_t episode, core::WallTime expires_at) const {
  const int64_t expiry = UnixSeconds(expires_at);
  const std::string channel_b64 = Base64Url(channel);
  const std::string group_b64 = Base64Url(group_key);
  return "g1." + std::to_string(episode) + "." + std::to_string(expiry) + "." + channel_b64 + "." +
         group_b64 + "." + GroupMac(channel_b64, group_b64, episode, expiry);
}

std::string AckLinkSigner::GroupLink(std::string_view channel, std::string_view group_key,
                                     uint64_t episode, core::WallTime issued_at) const {
  return public_url_ + "/v1/ack/" + GroupToken(channel, group_key, episode, issued_at + ttl_);
}

core::Result<AckClaim> AckLinkSigner::VerifyGroup(std::string_view token,
                                                  core::WallTime now) const {
  const std::vector<std::string_view> parts = Parts(token, 6);
  if (parts.empty() || parts[0] != "g1") return Malformed();
  const auto episode = Number<uint64_t>(parts[1]);
  const auto expiry = Number<int64_t>(parts[2]);
  auto channel = FromBase64Url(parts[3]);
  auto group_key = FromBase64Url(parts[4]);
  if (!episode || *episode == 0 || !expiry || !channel || channel->empty() || !group_key ||
      group_key->empty() || parts[5].size() != kMacDigits || *expiry < 0 ||
      *expiry > std::numeric_limits<int64_t>::max() / 1'000'000) {
    return Malformed();
  }
  // Only the signer's own spelling, as for an incident's link.
  if (parts[1] != std::to_string(*episode) || parts[2] != std::to_string(*expiry) ||
      parts[3] != Base64Url(*channel) || parts[4] != Base64Url(*group_key)) {
    return Malformed();
  }
  const std::string expected = GroupMac(parts[3], parts[4], *episode, *expiry);
  if (CRYPTO_memcmp(expected.data(), parts[5].data(), kMacDigits) != 0) return Forged();
  AckClaim claim;
  claim.expires_at = core::WallTime{std::chrono::seconds(*expiry)};
  claim.channel = std::move(*channel);
  claim.group_key = std::move(*group_key);
  claim.episode = *episode;
  if (now >= claim.expires_at) return Expired(claim.expires_at);
  return claim;
}

std::string AckLinkSigner::Token(std::string_view key, uint64_t generation,
                                 core::WallTime expires_at) const {
  const int64_t expiry = UnixSeconds(expires_at);
  return "v1." + std::to_string(generation) + "." + std::to_string(expiry) + "." + Base64Url(key) +
         "." + Mac(key, generation, expiry);
}

std::string AckLinkSigner::Link(std::string_view key, uint64_t generation,
                                core::WallTime issued_at) const {
  return public_url_ + "/v1/ack/" + Token(key, generation, issued_at + ttl_);
}

core::Result<AckClaim> AckLinkSigner::Verify(std::string_view token, core::WallTime now) const {
  if (token.starts_with("g1.")) return VerifyGroup(token, now);
  const std::vector<std::string_view> parts = Parts(token, 5);
  if (parts.empty() || parts[0] != "v1") return Malformed();
  const auto generation = Number<uint64_t>(parts[1]);
  const auto expiry = Number<int64_t>(parts[2]);
  auto key = FromBase64Url(parts[3]);
  if (!generation || !expiry || !key || key->empty() || parts[4].size() != kMacDigits ||
      *expiry < 0 || *expiry > std::numeric_limits<int64_t>::max() / 1'000'000) {
    return Malformed();
  }
  // Only the signer's own spelling: leading zeros, or stray low bits in the key's last base64url
  // character, would parse to the same claim under the same mac and make one link many.
  if (parts[1] != std::to_string(*generation) || parts[2] != std::to_string(*expiry) ||
      parts[3] != Base64Url(*key)) {
    return Malformed();
  }
  const std::string expected = Mac(*key, *generation, *expiry);
  if (CRYPTO_memcmp(expected.data(), parts[4].data(), kMacDigits) != 0) return Forged();
  AckClaim claim;
  claim.key = std::move(*key);
  claim.generation = *generation;
  claim.expires_at = core::WallTime{std::chrono::seconds(*expiry)};
  if (now >= claim.expires_at) return Expired(claim.expires_at);
  return claim;
}

}  // namespace quell::channels
