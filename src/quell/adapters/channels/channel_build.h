#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "quell/adapters/channels/http_timeouts.h"
#include "quell/core/ports/channel.h"
#include "quell/core/ports/clock.h"
#include "quell/core/result.h"

namespace quell::channels {

// What a channel type's builder is handed besides its settings: the parts of the channel's
// shared delivery settings a channel itself uses, and what the process provides.
struct ChannelBuild {
  std::string name;              // the channel's name, for its messages
  HttpTimeouts timeouts;         // connect_timeout and timeout
  std::string ca_file;           // e-mail's; the HTTP channels share the multi handle's
  size_t group_limit = 0;        // the channel's group_limit, else its type's default
  std::string link_prefix;       // where an incident's link starts; empty: no link
  core::Clock* clock = nullptr;  // e-mail dates its Message-IDs by it
};

// A built channel: an HTTP channel (its requests sent together by one CurlMultiClient) or a
// blocking one (e-mail, sent on worker threads).
using BuiltChannel =
    std::variant<std::unique_ptr<core::HttpChannel>, std::unique_ptr<core::Channel>>;

// The channel `made` returned, or its error, as a BuiltChannel.
template <typename Made>
core::Result<BuiltChannel> Built(core::Result<std::unique_ptr<Made>> made) {
  if (!made) return made.error();
  if constexpr (std::is_base_of_v<core::HttpChannel, Made>) {
    return BuiltChannel{std::in_place_type<std::unique_ptr<core::HttpChannel>>, std::move(*made)};
  } else {
    return BuiltChannel{std::in_place_type<std::unique_ptr<core::Channel>>, std::move(*made)};
  }
}

}  // namespace quell::channels
