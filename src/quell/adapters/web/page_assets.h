#pragma once

#include <span>
#include <string_view>

namespace quell::web {

// One file of the operator page, as built into the binary from assets/ (embed_assets.cmake).
struct PageAsset {
  std::string_view name;          // the file's name: "index.html", "app.js", ...
  std::string_view content_type;  // "text/javascript; charset=utf-8", ...
  std::string_view body;          // the file's bytes, unchanged
  std::string_view etag;          // a quoted tag from the bytes' SHA-256: "\"3f2a...\""
};

// Every file of the page, in the order CMakeLists.txt names them; static storage.
std::span<const PageAsset> PageAssets();

// The file named `name`, or nullptr.
const PageAsset* FindPageAsset(std::string_view name);

}  // namespace quell::web
