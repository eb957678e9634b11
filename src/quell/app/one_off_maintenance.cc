#include "quell/app/one_off_maintenance.h"

namespace quell::app {
namespace {

core::Error Bad(const std::string& message) {
  return core::MakeError(core::ErrorCode::kInvalidArgument, message);
}

}  // namespace

core::Result<core::OneOffWindow> OneOffMaintenance::Add(const OneOffRequest& request,
                                                        core::WallTime now) {
  if (request.keys.empty()) return Bad("keys: want a key glob, e.g. \"acme:*\"");
  if (request.reason.empty()) return Bad("reason: say why the window is there");
  if (request.ends_at.has_value() == request.duration.has_value()) {
    return Bad("ends_at, for: give exactly one of them");
  }
  core::OneOffWindow window;
  window.name = request.name.empty() ? "one-off" : request.name;
  window.keys = request.keys;
  window.labels = request.labels;
  window.starts_at = request.starts_at.value_or(now);
  window.ends_at = request.ends_at ? *request.ends_at : window.starts_at + *request.duration;
  window.reason = request.reason;
  window.created_by = request.by;
  window.created_at = now;
  if (window.ends_at <= window.starts_at) {
    return Bad(std::string(request.ends_at ? "ends_at" : "for") + ": the window must end after " +
               core::FormatRfc3339(window.starts_at));
  }
  if (window.ends_at <= now) {
    return Bad(std::string(request.ends_at ? "ends_at" : "for") +
               ": the window must end after now (" + core::FormatRfc3339(now) + ")");
  }
  auto id = store_.AddOneOffWindow(window);
  if (!id) return id.error();
  window.id = *id;
  return window;
}

core::Result<core::OneOffWindow> OneOffMaintenance::Expire(uint64_t id, core::WallTime now) {
  return store_.ExpireOneOffWindow(id, now);
}

core::Result<std::vector<core::OneOffWindow>> OneOffMaintenance::Listed(core::WallTime now) {
  return store_.ListOneOffWindows(now - kOneOffListedFor);
}

}  // namespace quell::app
