#pragma once

#include <string_view>

#include "quell/core/result.h"

namespace quell::core {

// Resolves an error group where it lives (Infrai's errors.resolve), for an operator's
// `incidents resolve --upstream`. Sources that cannot (Prometheus) have no GroupResolver.
class GroupResolver {
 public:
  virtual ~GroupResolver() = default;
  // Marks `group_id` resolved at the source; resolving a resolved group succeeds. kNotFound for
  // an id the source does not know, kPermissionDenied for a refused key, kUnavailable or
  // kTimeout when the source cannot be reached. Thread-safety is the implementation's.
  virtual Status ResolveGroup(std::string_view group_id) = 0;
};

}  // namespace quell::core
