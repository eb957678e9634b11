#pragma once

#include <optional>
#include <string>
#include <vector>

#include "quell/adapters/infrai/infrai_client.h"
#include "quell/core/result.h"

namespace quell::infrai {

// One entry of the public discovery manifest (GET /v1/discovery, not enveloped).
struct Capability {
  std::string id;  // e.g. "errors.groups"
  std::string method;
  std::string path;
  bool available = false;
};

struct Manifest {
  std::string version;
  std::vector<Capability> capabilities;

  const Capability* Find(std::string_view id) const;
  // The capability serving `method path`, matching "{param}" segments; nullptr when none.
  const Capability* FindRoute(std::string_view method, std::string_view path) const;
};

// GET /v1/discovery without the key (the manifest is public). kCorrupt when it has no
// capabilities array; the transport's codes otherwise.
core::Result<Manifest> FetchManifest(const InfraiClient& client);

// The query parameter names a capability's detail declares (GET /v1/discovery/{id}, the
// `params` JSON Schema's properties); empty when it declares none.
core::Result<std::vector<std::string>> FetchDeclaredParams(const InfraiClient& client,
                                                           std::string_view capability);

}  // namespace quell::infrai
