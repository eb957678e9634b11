#include "quell/adapters/infrai/group_resolver.h"

#include <string>

#include "quell/adapters/infrai/envelope.h"
#include "quell/core/text/url.h"

namespace quell::infrai {

InfraiGroupResolver::InfraiGroupResolver(const InfraiClient& client) : client_(client) {}

core::Status InfraiGroupResolver::ResolveGroup(std::string_view group_id) {
  if (group_id.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument, "an error group id is empty");
  }
  // The id rides the path, so it is percent-encoded; the body is empty JSON as the routes
  // that take no parameters expect.
  const std::string path = "/v1/errors/resolve/" + core::UrlEncode(group_id);
  const std::string what = "POST /v1/errors/resolve/{" + std::string(group_id) + "}";
  auto response = client_.Post(path, "{}");
  if (!response) return response.error();
  simdjson::dom::parser parser;
  auto data = OpenEnvelope(parser, *response, what);
  if (!data) return data.error();
  return {};
}

}  // namespace quell::infrai
