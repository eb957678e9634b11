// Signed ack-link tokens (docs/operations.md, "Fuzzing"). Input: a mode byte, then
//   mode even: a token as a link's reader sends it, verified (one that verifies must be the
//     signer's own);
//   mode odd:  a key (first line), a generation and an expiry (the next line, "G E"), then an
//     edit: the token signed for them has the rest of the input inserted at the position the
//     edit byte names. Whatever the edit, a token that verifies is the very token the signer
//     makes for its claim: a link cannot be rewritten into another that still works.
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "fuzz_input.h"
#include "quell/adapters/channels/ack_link.h"

namespace {

using quell::core::WallTime;

const WallTime kNow(std::chrono::seconds(1798794000));

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const quell::channels::AckLinkSigner signer(
      "ack-link-secret-for-the-fuzzer-0123", "https://quell.example", std::chrono::hours(24));
  quell::fuzz::FuzzInput input(data, size);
  const uint8_t mode = input.Byte();
  if (mode % 2 == 0) {
    const std::string_view token = input.Rest();
    auto claim = signer.Verify(token, kNow);
    // Only a seed holds a mac of the signer's; mutations of it verify only as it was made.
    // A group's link ("g1.") likewise, re-signed for its channel, group key and episode.
    const auto resigned = [&] {
      return claim->is_group() ? signer.GroupToken(claim->channel, claim->group_key, claim->episode,
                                                   claim->expires_at)
                               : signer.Token(claim->key, claim->generation, claim->expires_at);
    };
    quell::fuzz::Require(!claim || resigned() == token,
                         "a token verified that the signer did not make");
    return 0;
  }
  const std::string key(input.Line());
  if (key.empty()) return 0;  // the signer is never asked for an empty key
  const std::string_view numbers = input.Line();
  const size_t space = numbers.find(' ');
  if (space == std::string_view::npos) return 0;
  uint64_t generation = 0;
  int64_t expiry = 0;
  if (std::from_chars(numbers.data(), numbers.data() + space, generation).ec != std::errc() ||
      std::from_chars(numbers.data() + space + 1, numbers.data() + numbers.size(), expiry).ec !=
          std::errc()) {
    return 0;
  }
  // Expiries a link can carry: after 1970, within a few centuries of now.
  const WallTime expires_at = kNow + std::chrono::seconds(expiry % (int64_t{400} * 366 * 86400));
  if (expires_at.time_since_epoch().count() < 0) return 0;
  const std::string token = signer.Token(key, generation, expires_at);
  const size_t at = input.Byte() % (token.size() + 1);
  std::string edited = token;
  edited.insert(at, input.Rest());

  auto claim = signer.Verify(edited, kNow);
  if (!claim) {
    quell::fuzz::Require(edited != token || claim.error().code == quell::core::ErrorCode::kRejected,
                         "a token the signer made does not verify");
    return 0;
  }
  quell::fuzz::Require(edited == token, "an edited token still verifies");
  quell::fuzz::Require(
      claim->key == key && claim->generation == generation &&
          claim->expires_at == std::chrono::time_point_cast<std::chrono::seconds>(expires_at),
      "a token verified to another claim");
  return 0;
}
