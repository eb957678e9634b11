#include "quell/adapters/channels/channel_registry.h"

#include <variant>

namespace quell::channels {
namespace {

// Calls `f(Kind{}, settings)` with the kind whose settings `settings` holds.
template <typename F, typename... Kinds>
decltype(auto) WithKind(KindList<Kinds...> /*kinds*/, const ChannelSettings& settings, F&& f) {
  return std::visit(
      [&]<typename S>(const S& typed) { return f(typename KindOf<S, Kinds...>::type{}, typed); },
      settings);
}

template <typename... Kinds>
std::vector<std::string_view> Names(KindList<Kinds...> /*kinds*/) {
  return {Kinds::kType...};
}

template <typename... Kinds>
std::optional<ChannelSettings> Read(KindList<Kinds...> /*kinds*/, std::string_view type,
                                    ChannelReading& reading) {
  std::optional<ChannelSettings> out;
  auto read = [&]<typename K>(K /*kind*/) {
    if (type != K::kType) return false;
    auto& settings = out.emplace(std::in_place_type<typename K::Settings>);
    K::Read(reading, std::get<typename K::Settings>(settings));
    return true;
  };
  (read(Kinds{}) || ...);
  return out;
}

}  // namespace

std::vector<std::string_view> ChannelTypeNames() { return Names(ChannelKinds{}); }

std::string_view ChannelTypeOf(const ChannelSettings& settings) {
  return WithKind(ChannelKinds{}, settings,
                  []<typename K>(K /*kind*/, const auto& /*typed*/) { return K::kType; });
}

std::optional<ChannelSettings> ReadChannelSettings(std::string_view type, ChannelReading& reading) {
  return Read(ChannelKinds{}, type, reading);
}

size_t DefaultGroupLimitOf(const ChannelSettings& settings) {
  return WithKind(ChannelKinds{}, settings, []<typename K>(K /*kind*/, const auto& /*typed*/) {
    return static_cast<size_t>(K::kGroupLimit);
  });
}

std::string CallbackSecretOf(const ChannelSettings& settings, CallbackRoute route) {
  return WithKind(ChannelKinds{}, settings,
                  [&]<typename K>(K /*kind*/, const auto& typed) -> std::string {
                    if constexpr (requires { K::kCallback; }) {
                      if (K::kCallback == route) return K::CallbackSecret(typed);
                    }
                    return {};
                  });
}

std::optional<uint32_t> MaxSegmentsOf(const ChannelSettings& settings) {
  return WithKind(ChannelKinds{}, settings,
                  []<typename K>(K /*kind*/, const auto& typed) -> std::optional<uint32_t> {
                    if constexpr (requires { K::MaxSegments(typed); }) {
                      return K::MaxSegments(typed);
                    }
                    return std::nullopt;
                  });
}

}  // namespace quell::channels
