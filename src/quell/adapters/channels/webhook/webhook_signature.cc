#include "quell/adapters/channels/webhook/webhook_signature.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <array>
#include <atomic>
#include <charconv>
#include <initializer_list>
#include <limits>

#include "quell/core/text/hex.h"

namespace quell::channels {
namespace {

core::Error Denied(std::string message) {
  return core::MakeError(core::ErrorCode::kPermissionDenied, std::move(message));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// OpenSSL 3's one-shot HMAC() fetches the algorithm by name on every call (EVP_Q_mac), which
// cost more than hashing a message-sized body. The algorithm is fetched once, and each thread
// keeps a context keyed with each of its last few keys (the channels' secrets: a handful),
// which a signature only resets.
// A failed fetch (out of memory) is not kept: the next signature asks again, as HMAC() did.
EVP_MAC* HmacAlgorithm() {
  static std::atomic<EVP_MAC*> fetched{nullptr};
  if (EVP_MAC* mac = fetched.load(std::memory_order_acquire)) return mac;
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, OSSL_MAC_NAME_HMAC, nullptr);
  if (mac == nullptr) return nullptr;
  EVP_MAC* expected = nullptr;
  if (fetched.compare_exchange_strong(expected, mac, std::memory_order_acq_rel)) return mac;
  EVP_MAC_free(mac);  // another thread's fetch won; both are the same algorithm
  return expected;
}

class KeyedContexts {
 public:
  KeyedContexts() = default;
  KeyedContexts(const KeyedContexts&) = delete;
  KeyedContexts& operator=(const KeyedContexts&) = delete;
  ~KeyedContexts() {
    for (Entry& entry : entries_) Forget(entry);
  }

  // A context keyed with `key`, ready for EVP_MAC_update; null when OpenSSL fails (out of
  // memory: HMAC and SHA-256 are built in), which HMAC() answered with no bytes too.
  EVP_MAC_CTX* For(std::string_view key) {
    for (Entry& entry : entries_) {
      if (entry.context != nullptr && entry.key == key) {
        // A null key keeps the one set, and starts a new message.
        if (EVP_MAC_init(entry.context, nullptr, 0, nullptr) == 1) return entry.context;
        Forget(entry);
        break;
      }
    }
    Entry& entry = entries_[next_];
    next_ = (next_ + 1) % entries_.size();
    Forget(entry);
    EVP_MAC* const algorithm = HmacAlgorithm();
    if (algorithm == nullptr) return nullptr;
    entry.context = EVP_MAC_CTX_new(algorithm);
    char digest[] = OSSL_DIGEST_NAME_SHA2_256;
    const std::array<OSSL_PARAM, 2> params = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_end()};
    // HMAC() takes a null key of no length as the empty key; the provider wants a pointer.
    static const unsigned char kEmpty = 0;
    const auto* bytes = key.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(key.data());
    if (entry.context == nullptr ||
        EVP_MAC_init(entry.context, bytes, key.size(), params.data()) != 1) {
      Forget(entry);
      return nullptr;
    }
    entry.key.assign(key);
    return entry.context;
  }

 private:
  struct Entry {
    std::string key;
    EVP_MAC_CTX* context = nullptr;
  };

  static void Forget(Entry& entry) {
    EVP_MAC_CTX_free(entry.context);
    entry.context = nullptr;
    OPENSSL_cleanse(entry.key.data(), entry.key.size());
    entry.key.clear();
  }

  std::array<Entry, 4> entries_;
  size_t next_ = 0;
};

std::string HmacSha256Hex(std::string_view key, std::initializer_list<std::string_view> parts) {
  thread_local KeyedContexts contexts;
  EVP_MAC_CTX* context = contexts.For(key);
  if (context == nullptr) return {};
  for (const std::string_view part : parts) {
    if (EVP_MAC_update(context, reinterpret_cast<const unsigned char*>(part.data()), part.size()) !=
        1) {
      return {};
    }
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  size_t length = 0;
  if (EVP_MAC_final(context, mac.data(), &length, mac.size()) != 1) return {};
  return core::HexOf(std::span<const uint8_t>(mac.data(), length));
}

}  // namespace

std::string HmacSha256Hex(std::string_view key, std::string_view data) {
  return HmacSha256Hex(key, {data});
}

std::string WebhookSignature(std::string_view secret, int64_t unix_seconds, std::string_view body) {
  // "<timestamp>.<body>" hashed in parts: the body is not copied.
  const std::string seconds = std::to_string(unix_seconds);
  return "v1=" + HmacSha256Hex(secret, {seconds, ".", body});
}

std::optional<int64_t> ParseUnixSecondsHeader(std::string_view header) {
  header = Trim(header);
  int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
  if (header.empty() || ec != std::errc() || end != header.data() + header.size() || seconds < 0 ||
      seconds > std::numeric_limits<int64_t>::max() / 1'000'000) {
    return std::nullopt;
  }
  return seconds;
}

bool AnySignatureMatches(std::string_view header, std::string_view expected) {
  bool valid = false;
  while (!header.empty()) {
    const size_t comma = header.find(',');
    const std::string_view candidate = Trim(header.substr(0, comma));
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    // Every candidate is compared, so the time taken does not tell which one matched.
    if (candidate.size() == expected.size() &&
        CRYPTO_memcmp(candidate.data(), expected.data(), expected.size()) == 0) {
      valid = true;
    }
  }
  return valid;
}

core::Status VerifyWebhookSignature(std::string_view secret, std::string_view timestamp_header,
                                    std::string_view signature_header, std::string_view body,
                                    core::WallTime now, core::Duration tolerance) {
  const std::optional<int64_t> seconds = ParseUnixSecondsHeader(timestamp_header);
  if (!seconds) return Denied("X-Quell-Timestamp is missing or not Unix seconds");
  const core::WallTime sent_at{std::chrono::seconds(*seconds)};
  if (sent_at > now + tolerance || sent_at < now - tolerance) {
    return Denied("X-Quell-Timestamp is outside the tolerance window");
  }
  if (signature_header.empty()) return Denied("X-Quell-Signature is missing");
  if (!AnySignatureMatches(signature_header, WebhookSignature(secret, *seconds, body))) {
    return Denied("X-Quell-Signature does not match the body and timestamp");
  }
  return {};
}

}  // namespace quell::channels
