#include "quell/adapters/infrai/discovery.h"

#include <simdjson.h>

#include "quell/adapters/infrai/envelope.h"
#include "quell/core/text/url.h"

namespace quell::infrai {
namespace {

// "/v1/errors/group_detail/{error_group_id}" matches "/v1/errors/group_detail/x".
bool RouteMatches(std::string_view pattern, std::string_view path) {
  while (!pattern.empty() && !path.empty()) {
    const size_t p_end = pattern.find('/', 1);
    const size_t q_end = path.find('/', 1);
    const std::string_view p = pattern.substr(0, p_end);
    const std::string_view q = path.substr(0, q_end);
    const bool param = p.size() > 2 && p[1] == '{' && p.back() == '}';
    if (!param && p != q) return false;
    pattern = p_end == std::string_view::npos ? std::string_view() : pattern.substr(p_end);
    path = q_end == std::string_view::npos ? std::string_view() : path.substr(q_end);
  }
  return pattern.empty() && path.empty();
}

}  // namespace

const Capability* Manifest::Find(std::string_view id) const {
  for (const Capability& capability : capabilities) {
    if (capability.id == id) return &capability;
  }
  return nullptr;
}

const Capability* Manifest::FindRoute(std::string_view method, std::string_view path) const {
  for (const Capability& capability : capabilities) {
    if (capability.method == method && RouteMatches(capability.path, path)) return &capability;
  }
  return nullptr;
}

core::Result<Manifest> FetchManifest(const InfraiClient& client) {
  auto response = client.Get("/v1/discovery", {}, /*authenticated=*/false);
  if (!response) return response.error();
  simdjson::dom::parser parser;
  auto body = OpenBareObject(parser, *response, "GET /v1/discovery");
  if (!body) return body.error();
  Manifest manifest;
  std::string_view version;
  if (!(*body)["version"].get_string().get(version)) manifest.version = std::string(version);
  simdjson::dom::array array;
  if ((*body)["capabilities"].get_array().get(array)) {
    return core::MakeError(core::ErrorCode::kCorrupt,
                           "GET /v1/discovery: no \"capabilities\" array");
  }
  for (const simdjson::dom::element item : array) {
    simdjson::dom::object object;
    if (item.get_object().get(object)) continue;
    Capability capability;
    std::string_view text;
    if (object["id"].get_string().get(text)) continue;
    capability.id = std::string(text);
    if (!object["method"].get_string().get(text)) capability.method = std::string(text);
    if (!object["path"].get_string().get(text)) capability.path = std::string(text);
    bool available = false;
    if (!object["available"].get_bool().get(available)) capability.available = available;
    manifest.capabilities.push_back(std::move(capability));
  }
  return manifest;
}

core::Result<std::vector<std::string>> FetchDeclaredParams(const InfraiClient& client,
                                                           std::string_view capability) {
  const std::string what = "GET /v1/discovery/" + std::string(capability);
  auto response = client.Get("/v1/discovery/" + core::UrlEncode(capability), {}, false);
  if (!response) return response.error();
  simdjson::dom::parser parser;
  auto body = OpenBareObject(parser, *response, what);
  if (!body) return body.error();
  std::vector<std::string> names;
  simdjson::dom::object properties;
  if (!(*body)["params"]["properties"].get_object().get(properties)) {
    for (const auto field : properties) names.emplace_back(field.key);
  }
  return names;
}

}  // namespace quell::infrai
