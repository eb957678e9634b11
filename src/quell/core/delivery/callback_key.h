#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace quell::core {

// What a provider echoes back of a message quell sent (a PagerDuty dedup key, a Slack button's
// value), naming exactly which incident generations an ack or resolve from it may touch:
//   "<key>:<generation>"                       one incident generation
//   "{group:<channel>:<episode>}:<group key>"  the members a group's alert on a channel carried
//                                              in that episode (core::GroupEpisodeOf); the
//                                              channel percent-encoded (core::UrlEncode)
//   "q1-<32 hex digits>"                       the members one group message carried: its
//                                              outbox row's idempotency key
//   "{group}:<group key>"                      the form sent before episodes were kept (a
//                                              group's alert still open since then keeps it)
// No incident key holds a brace, and the key form always has a colon, so the forms never meet.
struct CallbackKey {
  enum class Kind : uint8_t { kIncident, kGroupAlert, kGroupMessage, kLegacyGroup };
  Kind kind = Kind::kIncident;
  std::string key;          // kIncident
  uint64_t generation = 0;  // kIncident
  std::string channel;      // kGroupAlert
  std::string group_key;    // kGroupAlert, kLegacyGroup
  uint64_t episode = 0;     // kGroupAlert, never 0
  std::string group_row;    // kGroupMessage
};

std::string IncidentCallbackKey(std::string_view key, uint64_t generation);
std::string GroupAlertCallbackKey(std::string_view channel, std::string_view group_key,
                                  uint64_t episode);

// The key `text` is; nullopt when it is none of quell's.
std::optional<CallbackKey> ParseCallbackKey(std::string_view text);

}  // namespace quell::core
