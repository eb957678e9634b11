#include "quell/adapters/channels/channel_builder.h"

#include <variant>

namespace quell::channels {
namespace {

template <typename F, typename... Kinds>
decltype(auto) WithBuilder(KindList<Kinds...> /*kinds*/, const ChannelSettings& settings, F&& f) {
  return std::visit(
      [&]<typename S>(const S& typed) { return f(typename KindOf<S, Kinds...>::type{}, typed); },
      settings);
}

}  // namespace

core::Result<BuiltChannel> BuildChannel(const ChannelSettings& settings,
                                        const ChannelBuild& build) {
  return WithBuilder(ChannelKinds{}, settings, [&]<typename K>(K /*kind*/, const auto& typed) {
    return K::Build(typed, build);
  });
}

std::optional<core::SmsPacingRules> PacingOf(const ChannelSettings& settings) {
  return WithBuilder(
      ChannelKinds{}, settings,
      []<typename K>(K /*kind*/, const auto& typed) -> std::optional<core::SmsPacingRules> {
        if constexpr (requires { K::Pacing(typed); }) return K::Pacing(typed);
        return std::nullopt;
      });
}

}  // namespace quell::channels
