#include "quell/adapters/http_server/page_routes.h"

#include <string>
#include <utility>

#include "quell/adapters/web/page_assets.h"

namespace quell::http_server {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Whether an If-None-Match value names `etag`: a list of tags, weak ones compared by their
// opaque part (RFC 9110 13.1.2 uses the weak comparison for If-None-Match), or `*`.
bool Matches(std::string_view if_none_match, std::string_view etag) {
  while (!if_none_match.empty()) {
    const size_t comma = if_none_match.find(',');
    std::string_view tag = Trim(if_none_match.substr(0, comma));
    if_none_match = comma == std::string_view::npos ? "" : if_none_match.substr(comma + 1);
    if (tag == "*") return true;
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == etag) return true;
  }
  return false;
}

// `text` matching itself only in a regex (a file name's '.', say).
std::string RegexLiteral(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (std::string_view(R"(\^$.|?*+()[]{})").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

app::OpsResponse Serve(const web::PageAsset& asset, const app::OpsRequest& request) {
  app::OpsResponse response;
  response.content_type = std::string(asset.content_type);
  response.headers = {
      {"Content-Security-Policy", std::string(kPageCsp)},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      // Revalidated at every load, so a new binary's page is never mixed with an old script.
      {"Cache-Control", "no-cache"},
      {"ETag", std::string(asset.etag)},
  };
  const auto it = request.headers.find("if-none-match");
  if (it != request.headers.end() && Matches(it->second, asset.etag)) {
    response.status = 304;
    return response;
  }
  response.body = std::string(asset.body);
  return response;
}

app::OpsRoute Route(std::string pattern, const web::PageAsset& asset) {
  return app::OpsRoute{
      .method = "GET",
      .pattern = std::move(pattern),
      .write = false,
      .handler = [&asset](const app::OpsRequest& request) { return Serve(asset, request); },
      .is_public = true};
}

}  // namespace

std::vector<app::OpsRoute> PageRoutes() {
  std::vector<app::OpsRoute> routes;
  // The shell for every page the script draws: the script reads the path and fetches the rest.
  if (const web::PageAsset* shell = web::FindPageAsset("index.html")) {
    routes.push_back(
        Route("^/(?:|incidents/.+|groups/[^/]+/.+|outbox|silences|maintenance|sources)$", *shell));
  }
  // Every other file at /assets/<name>, so a module added to CMakeLists.txt is served with no
  // second list to keep in step; the shell itself only at the page paths.
  for (const web::PageAsset& asset : web::PageAssets()) {
    if (asset.name == "index.html") continue;
    routes.push_back(Route("^/assets/" + RegexLiteral(asset.name) + "$", asset));
  }
  return routes;
}

}  // namespace quell::http_server
