#pragma once

#include <cstdint>
#include <type_traits>
#include <variant>

// What every channel type's kind (the <type>_kind.h of its folder) is, and the list the
// registry is made of. A kind is a struct of static members:
//   using Settings = ...;                   the type's one settings struct (<type>_settings.h)
//   static constexpr std::string_view kType the YAML `type:` that selects it
//   static constexpr size_t kGroupLimit     members a group message lists by default
//   static void Read(ChannelReading&, Settings&)                      its reader
//   static core::Result<BuiltChannel> Build(Settings, const ChannelBuild&)  its builder
// and, where the type has them:
//   static constexpr CallbackRoute kCallback + static const std::string& CallbackSecret(
//     const Settings&)                      the callback route its secret signs
//   static std::optional<core::SmsPacingRules> Pacing(const Settings&)  send pacing
//   static uint32_t MaxSegments(const Settings&)                         SMS segments
namespace quell::channels {

// A route of quell's HTTP surface that a channel's provider calls back, signed with a secret
// from that channel's settings.
enum class CallbackRoute : uint8_t {
  kNone,
  kSlackInteractivity,  // POST /v1/slack/interactivity: Acknowledge clicks
  kPagerDutyWebhook,    // POST /v1/pagerduty/webhook: acks and resolves in PagerDuty
};

template <typename... Kinds>
struct KindList {
  // One channel's type-specific settings: which alternative it holds says its type.
  using Settings = std::variant<typename Kinds::Settings...>;
};

// The kind among `Kinds` whose settings are `S`.
template <typename S, typename... Kinds>
struct KindOf;
template <typename S, typename K, typename... Rest>
struct KindOf<S, K, Rest...> : std::conditional_t<std::is_same_v<S, typename K::Settings>,
                                                  std::type_identity<K>, KindOf<S, Rest...>> {};

}  // namespace quell::channels
