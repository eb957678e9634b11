#include "quell/adapters/web/page_assets.h"

namespace quell::web {

const PageAsset* FindPageAsset(std::string_view name) {
  for (const PageAsset& asset : PageAssets()) {
    if (asset.name == name) return &asset;
  }
  return nullptr;
}

}  // namespace quell::web
