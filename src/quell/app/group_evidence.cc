#include "quell/app/group_evidence.h"

#include <bit>
#include <cstring>
#include <utility>

namespace quell::app {
namespace {

// Bumped whenever BuildEvidence, Redact or GroupEvidence would build other evidence from the
// same group: fingerprints taken before then no longer match, so every group's evidence is
// built again once. (EvidenceRulesSalt also hashes a sample group's evidence, which catches a
// change to any rule the sample touches by itself.)
constexpr uint64_t kEvidenceRules = 1;

// 64-bit streaming hash, XXH64's round and avalanche on a single lane: every byte of the input
// reaches every bit of the result. Texts are length-prefixed, so no two field lists run together.
class Fingerprint {
 public:
  explicit Fingerprint(uint64_t seed) : h_(seed + kP5) {}

  void Add(uint64_t v) {
    h_ ^= Round(v);
    h_ = std::rotl(h_, 27) * kP1 + kP4;
  }
  void Add(std::string_view text) {
    Add(static_cast<uint64_t>(text.size()));
    // Words in the machine's byte order: a fingerprint is only ever compared with one taken
    // by the same build of quell (EvidenceRulesSalt), on another machine it merely misses.
    size_t at = 0;
    for (; at + 8 <= text.size(); at += 8) {
      uint64_t word = 0;
      std::memcpy(&word, text.data() + at, 8);
      Add(word);
    }
    if (at < text.size()) {
      uint64_t word = 0;
      std::memcpy(&word, text.data() + at, text.size() - at);
      Add(word);
    }
  }
  uint64_t Done() const {
    uint64_t h = h_;
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    h ^= h >> 32;
    return h;
  }

 private:
  static constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL;
  static constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
  static constexpr uint64_t kP3 = 0x165667B19E3779F9ULL;
  static constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
  static constexpr uint64_t kP5 = 0x27D4EB2F165667C5ULL;
  static uint64_t Round(uint64_t v) { return std::rotl(v * kP2, 31) * kP1; }
  uint64_t h_;
};

// A group every redaction rule and both limits touch, so that a change to what they build
// changes EvidenceRulesSalt on its own.
core::ErrorGroup SampleGroup() {
  core::ErrorGroup group;
  group.id = "sample-1";
  group.title = "TimeoutError: user ann@example.com card 4111 1111 1111 1111 phone +1 415 555 0100";
  group.level = "error";
  group.count = 3;
  group.last_seen = core::WallTime{} + std::chrono::hours(24 * 365 * 50);
  group.message =
      "Authorization: Bearer ifr_0123456789abcdefABCDEF token=sk-abcDEF0123456789xyz\n" +
      std::string(600, 'x') + "\nline\nline\nline\nline\nline\nline\nline\nline\nline";
  group.fields = {{"culprit", "app.handler in call"}, {"permalink", "https://example.test/i/1"}};
  group.tags = {{"env", "prod"}, {"api_key", "AKIAABCDEFGHIJKLMNOP"}, {"user", "bob@example.com"}};
  return group;
}

}  // namespace

std::string GroupEvidence(const core::ErrorGroup& group, const core::GroupDetail* detail,
                          const core::RedactOptions& redact, const core::EvidenceOptions& options) {
  core::EvidenceInput input;
  auto add = [&input](const char* name, std::string value) {
    if (!value.empty()) input.fields.emplace_back(name, std::move(value));
  };
  add("group", group.id);
  add("title", group.title);
  add("level", group.level);
  add("count", std::to_string(group.count));
  if (group.last_seen) add("last_seen", core::FormatRfc3339(*group.last_seen));
  if (group.resolved) add("status", "resolved");
  if (detail != nullptr && !detail->events.empty()) {
    const core::GroupEvent& event = detail->events.front();
    add("event_id", event.event_id);
    if (event.at) add("event_at", core::FormatRfc3339(*event.at));
    add("message", event.message.empty() ? group.message : event.message);
    add("exception", event.exception);
  } else {
    add("message", group.message);
  }
  // Sentry's: where the error happens, and the issue's own page, which a message links.
  for (const char* name : kLinkFields) {
    if (const auto value = core::FindLabel(group.fields, name)) add(name, std::string(*value));
  }
  input.tags = group.tags;
  return core::BuildEvidence(input, redact, options);
}

core::ErrorGroup GroupEvidenceSource(const core::ErrorGroup& group) {
  core::ErrorGroup kept;
  kept.id = group.id;
  kept.title = group.title;
  kept.message = group.message;
  kept.level = group.level;
  kept.resolved = group.resolved;
  kept.count = group.count;
  kept.last_seen = group.last_seen;
  for (const char* name : kLinkFields) {
    if (const auto value = core::FindLabel(group.fields, name)) {
      kept.fields.emplace_back(name, std::string(*value));
    }
  }
  kept.tags = group.tags;
  return kept;
}

uint64_t EvidenceRulesSalt(const core::RedactOptions& redact,
                           const core::EvidenceOptions& options) {
  Fingerprint f(kEvidenceRules);
  f.Add(static_cast<uint64_t>(redact.max_text));
  f.Add(static_cast<uint64_t>(redact.random_tokens ? 1 : 0));
  f.Add(static_cast<uint64_t>(redact.extra_secret_prefixes.size()));
  for (const std::string& prefix : redact.extra_secret_prefixes) f.Add(prefix);
  f.Add(static_cast<uint64_t>(options.max_bytes));
  f.Add(static_cast<uint64_t>(options.max_lines));
  f.Add(GroupEvidence(SampleGroup(), nullptr, redact, options));
  return f.Done();
}

uint64_t GroupEvidenceFingerprint(const core::ErrorGroup& group, uint64_t rules_salt) {
  // Exactly what GroupEvidence(group, nullptr, ...) reads, in its order.
  Fingerprint f(rules_salt);
  f.Add(group.id);
  f.Add(group.title);
  f.Add(group.level);
  f.Add(group.count);
  f.Add(static_cast<uint64_t>(group.last_seen ? 1 : 0));
  if (group.last_seen) {
    f.Add(static_cast<uint64_t>(group.last_seen->time_since_epoch().count()));
  }
  f.Add(static_cast<uint64_t>(group.resolved ? 1 : 0));
  f.Add(group.message);
  for (const char* name : kLinkFields) {
    const auto value = core::FindLabel(group.fields, name);
    f.Add(static_cast<uint64_t>(value ? 1 : 0));
    if (value) f.Add(*value);
  }
  f.Add(static_cast<uint64_t>(group.tags.size()));
  for (const auto& [name, value] : group.tags) {
    f.Add(name);
    f.Add(value);
  }
  return f.Done();
}

}  // namespace quell::app
