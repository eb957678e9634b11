#include "quell/adapters/wiring/store_url.h"

#include <charconv>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/postgres/pg_incident_store.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/core/text/url.h"

namespace quell::wiring {

core::Result<core::Store> OpenStore(const std::string& url, StoreAccess access) {
  if (url.rfind("sqlite:", 0) == 0) {
    std::string path = url.substr(7);
    sqlite::SqliteOptions options;
    options.create = access == StoreAccess::kCreate;
    if (auto q = path.find("?busy_timeout_ms="); q != std::string::npos) {
      const std::string value = path.substr(q + 17);
      int64_t ms = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
      if (ec != std::errc() || end != value.data() + value.size() || ms < 0) {
        return core::MakeError(
            core::ErrorCode::kInvalidArgument,
            "--store: busy_timeout_ms wants milliseconds, got \"" + value + "\"");
      }
      options.busy_timeout = std::chrono::milliseconds(ms);
      path.resize(q);
    }
    if (path.empty()) {
      return core::MakeError(core::ErrorCode::kInvalidArgument, "--store: sqlite: needs a path");
    }
    auto store = sqlite::SqliteIncidentStore::Open(path, options);
    if (!store) return store.error();
    return core::Store(std::move(*store));
  }
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) {
    auto store = postgres::PgIncidentStore::Open(url);
    if (!store) return store.error();
    return core::Store(std::move(*store));
  }
  return core::MakeError(
      core::ErrorCode::kInvalidArgument,
      "--store: want sqlite:PATH or postgresql://..., got \"" + core::MaskUrlPassword(url) + "\"");
}

core::Result<std::string> ChooseStoreUrl(const std::string& store_flag,
                                         const std::string& config_path) {
  if (!store_flag.empty()) return store_flag;
  if (config_path.empty()) return std::string("sqlite:quell.db");
  auto config = config::LoadConfig(config_path, config::ProcessEnv());
  if (!config) return core::MakeError(core::ErrorCode::kInvalidArgument, config.error().message);
  return config->store_url;
}

}  // namespace quell::wiring
