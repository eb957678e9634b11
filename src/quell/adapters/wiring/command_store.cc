#include "quell/adapters/wiring/command_store.h"

#include <utility>

namespace quell::wiring {

core::Result<CommandStore> OpenCommandStore(const StoreChoice& choice) {
  core::Result<std::string> url = choice.store_flag.empty() && choice.config != nullptr
                                      ? core::Result<std::string>(choice.config->store_url)
                                      : ChooseStoreUrl(choice.store_flag, choice.config_path);
  if (!url) return url.error();
  auto store = OpenStore(*url, choice.access);
  if (!store) return store.error();
  return CommandStore{std::move(*url), std::move(*store)};
}

}  // namespace quell::wiring
