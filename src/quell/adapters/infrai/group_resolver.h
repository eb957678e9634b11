#pragma once

#include <string_view>

#include "quell/adapters/infrai/infrai_client.h"
#include "quell/core/ports/group_resolver.h"

namespace quell::infrai {

// POST /v1/errors/resolve/{error_group_id}: the group is resolved at Infrai, and a new
// capture on it reopens it there. Errors as OpenEnvelope maps them (404 -> kNotFound).
class InfraiGroupResolver final : public core::GroupResolver {
 public:
  explicit InfraiGroupResolver(const InfraiClient& client);

  core::Status ResolveGroup(std::string_view group_id) override;

 private:
  const InfraiClient& client_;
};

}  // namespace quell::infrai
