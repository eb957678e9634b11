#include "quell/adapters/config/store_url_check.h"

#include <charconv>
#include <cstdint>
#include <string>

#include "quell/core/text/url.h"

namespace quell::config {

core::Status CheckStoreUrl(std::string_view url) {
  if (url.starts_with("sqlite:")) {
    std::string_view path = url.substr(7);
    if (const size_t q = path.find("?busy_timeout_ms="); q != std::string_view::npos) {
      const std::string_view value = path.substr(q + 17);
      int64_t ms = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
      if (ec != std::errc() || end != value.data() + value.size() || ms < 0) {
        return core::MakeError(
            core::ErrorCode::kInvalidArgument,
            "busy_timeout_ms wants milliseconds, got \"" + std::string(value) + "\"");
      }
      path = path.substr(0, q);
    }
    if (path.empty()) {
      return core::MakeError(core::ErrorCode::kInvalidArgument, "sqlite: needs a path");
    }
    return {};
  }
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) return {};
  return core::MakeError(
      core::ErrorCode::kInvalidArgument,
      "expected sqlite:PATH or postgresql://..., got \"" + core::MaskUrlPassword(url) + "\"");
}

}  // namespace quell::config
