// The operator page's routes: which paths answer which built-in file, the security and caching
// headers, 304 on a matching If-None-Match, that every built-in file is served and every module
// the script imports is built in, and that the shell loads nothing but /assets/...;
// then the same through the ops server on loopback, without a token.
#include "quell/adapters/http_server/page_routes.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "quell/adapters/http_server/ops_http_server.h"
#include "quell/adapters/web/page_assets.h"
#include "quell/core/text/sha256.h"

namespace quell::http_server {
namespace page_routes_test {

constexpr const char* kToken = "page-routes-test-token-0123";

// The route a GET of `path` reaches (as the server picks it: first match), or nullptr.
const app::OpsRoute* Find(const std::vector<app::OpsRoute>& routes, const std::string& path) {
  for (const app::OpsRoute& route : routes) {
    if (route.method == "GET" && std::regex_match(path, std::regex(route.pattern))) return &route;
  }
  return nullptr;
}

app::OpsResponse Get(const std::vector<app::OpsRoute>& routes, const std::string& path,
                     const std::string& if_none_match = "") {
  const app::OpsRoute* route = Find(routes, path);
  EXPECT_NE(route, nullptr) << path;
  if (route == nullptr) return {};
  app::OpsRequest request;
  request.method = "GET";
  request.path = path;
  if (!if_none_match.empty()) request.headers["if-none-match"] = if_none_match;
  return route->handler(request);
}

std::string Header(const app::OpsResponse& response, const std::string& name) {
  for (const auto& [n, v] : response.headers) {
    if (n == name) return v;
  }
  return "";
}

std::string Asset(const char* name) {
  const web::PageAsset* asset = web::FindPageAsset(name);
  return asset == nullptr ? "" : std::string(asset->body);
}

// The content type a file of this name must be served with.
std::string TypeOf(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  return "";
}

// Every built-in file but the shell: what /assets/ serves.
std::vector<std::string> AssetNames() {
  std::vector<std::string> names;
  for (const web::PageAsset& asset : web::PageAssets()) {
    if (asset.name != "index.html") names.emplace_back(asset.name);
  }
  return names;
}

// The modules `script` imports, by their relative specifiers ('./api.js' -> "api.js").
std::vector<std::string> Imports(const std::string& script) {
  const std::regex import(R"re(\b(?:from|import)\s*'\./([^'/]+)')re");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(script.begin(), script.end(), import);
       it != std::sregex_iterator(); ++it) {
    names.push_back((*it)[1].str());
  }
  return names;
}

TEST(PageRoutesTest, EveryPagePathAnswersTheHtmlShell) {
  const std::vector<app::OpsRoute> routes = PageRoutes();
  const std::string shell = Asset("index.html");
  ASSERT_FALSE(shell.empty());
  // A key with ':' and '/' arrives decoded, as the server hands paths to routes.
  for (const char* path :
       {"/", "/incidents/acme:checkout:grp-7", "/incidents/acme:db/primary", "/outbox", "/silences",
        "/maintenance", "/sources", "/groups/ops/condition=checkout,tenant=a/b"}) {
    const app::OpsResponse response = Get(routes, path);
    EXPECT_EQ(response.status, 200) << path;
    EXPECT_EQ(response.content_type, "text/html; charset=utf-8") << path;
    EXPECT_EQ(response.body, shell) << path;
  }
}

TEST(PageRoutesTest, ThePageIsBuiltFromItsModules) {
  // The router, the shared modules and one module per page (docs/page.md).
  for (const char* name : {"index.html", "app.js", "dom.js", "time.js", "refresh.js", "api.js",
                           "incidents.js", "incident.js", "group.js", "outbox.js", "silences.js",
                           "maintenance.js", "sources.js", "app.css", "favicon.svg"}) {
    EXPECT_NE(web::FindPageAsset(name), nullptr) << name << " is not in the CMake list";
  }
}

// Every file CMakeLists.txt builds in is served: one listed there but not routed fails here.
TEST(PageRoutesTest, EveryBuiltInFileIsServedWithItsType) {
  const std::vector<app::OpsRoute> routes = PageRoutes();
  const std::vector<std::string> names = AssetNames();
  EXPECT_GE(names.size(), 13u);
  for (const std::string& name : names) {
    const app::OpsResponse response = Get(routes, "/assets/" + name);
    EXPECT_EQ(response.status, 200) << name;
    ASSERT_FALSE(TypeOf(name).empty()) << name;
    EXPECT_EQ(response.content_type, TypeOf(name)) << name;
    EXPECT_EQ(response.body, Asset(name.c_str())) << name;
    EXPECT_FALSE(response.body.empty()) << name;
  }
}

// A module imported but not built in would fail only in a browser; here it fails the build's
// tests. And every module is reached from app.js, so none is dead weight.
TEST(PageRoutesTest, EveryImportedModuleIsBuiltInAndEveryModuleIsImported) {
  std::vector<std::string> reached = {"app.js"};
  for (size_t i = 0; i < reached.size(); ++i) {
    const std::string script = Asset(reached[i].c_str());
    ASSERT_FALSE(script.empty()) << reached[i] << " is imported but not built in";
    for (const std::string& name : Imports(script)) {
      if (std::find(reached.begin(), reached.end(), name) == reached.end()) {
        reached.push_back(name);
      }
    }
  }
  EXPECT_GE(reached.size(), 11u);
  for (const std::string& name : AssetNames()) {
    if (!name.ends_with(".js")) continue;
    EXPECT_NE(std::find(reached.begin(), reached.end(), name), reached.end())
        << name << " is built in but no module imports it";
  }
}

TEST(PageRoutesTest, OtherPathsHaveNoPageRoute) {
  const std::vector<app::OpsRoute> routes = PageRoutes();
  for (const char* path :
       {"/incidents/", "/incidents", "/outboxes", "/assets/index.html", "/assets/app.jsx",
        "/assets/appxjs", "/assets/apixjs", "/assets/api.js.map", "/assets/", "/assets/app",
        "/v1/incidents", "/index.html", "/assets/../app.js", "/api.js", "/assets/x/api.js",
        "/groups/ops", "/groups/ops/", "/groups//x"}) {
    EXPECT_EQ(Find(routes, path), nullptr) << path;
  }
}

TEST(PageRoutesTest, RoutesArePublicReads) {
  for (const app::OpsRoute& route : PageRoutes()) {
    EXPECT_EQ(route.method, "GET") << route.pattern;
    EXPECT_FALSE(route.write) << route.pattern;
    EXPECT_TRUE(route.is_public) << route.pattern;
  }
}

TEST(PageRoutesTest, EveryAnswerCarriesTheSecurityAndCachingHeaders) {
  const std::vector<app::OpsRoute> routes = PageRoutes();
  std::vector<std::string> paths = {"/", "/incidents/k"};
  for (const std::string& name : AssetNames()) paths.push_back("/assets/" + name);
  for (const std::string& path : paths) {
    const app::OpsResponse response = Get(routes, path);
    EXPECT_EQ(Header(response, "Content-Security-Policy"),
              "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
              "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        << path;
    EXPECT_EQ(Header(response, "X-Content-Type-Options"), "nosniff") << path;
    EXPECT_EQ(Header(response, "Referrer-Policy"), "no-referrer") << path;
    EXPECT_EQ(Header(response, "Cache-Control"), "no-cache") << path;
    EXPECT_TRUE(std::regex_match(Header(response, "ETag"), std::regex("\"[0-9a-f]{20}\"")))
        << path << ": " << Header(response, "ETag");
  }
}

TEST(PageRoutesTest, TheEtagIsTheStartOfTheFilesSha256) {
  for (const web::PageAsset& asset : web::PageAssets()) {
    std::string hex;
    for (uint8_t byte : core::Sha256(asset.body)) {
      char two[3];
      std::snprintf(two, sizeof two, "%02x", byte);
      hex += two;
    }
    EXPECT_EQ(asset.etag, "\"" + hex.substr(0, 20) + "\"") << asset.name;
  }
  EXPECT_NE(web::FindPageAsset("app.js")->etag, web::FindPageAsset("app.css")->etag);
}

TEST(PageRoutesTest, AMatchingIfNoneMatchIsA304WithoutABody) {
  const std::vector<app::OpsRoute> routes = PageRoutes();
  const std::string etag(web::FindPageAsset("app.js")->etag);
  for (const std::string& header :
       {etag, "W/" + etag, "\"other\", " + etag, std::string("*"), " " + etag + " "}) {
    const app::OpsResponse response = Get(routes, "/assets/app.js", header);
    EXPECT_EQ(response.status, 304) << header;
    EXPECT_TRUE(response.body.empty()) << header;
    EXPECT_EQ(Header(response, "ETag"), etag) << header;
    EXPECT_EQ(Header(response, "Cache-Control"), "no-cache") << header;
  }
  // Another file's tag, or an old one, gets the file.
  const std::string css_etag(web::FindPageAsset("app.css")->etag);
  for (const std::string& header : {css_etag, std::string("\"0123\""), etag.substr(1)}) {
    const app::OpsResponse response = Get(routes, "/assets/app.js", header);
    EXPECT_EQ(response.status, 200) << header;
    EXPECT_EQ(response.body, Asset("app.js")) << header;
  }
}

TEST(PageRoutesTest, TheShellLoadsOnlyAssetsAndHasNoInlineCode) {
  const std::string shell = Asset("index.html");
  // Every src, and the href of every <link>, is one of the built-in files.
  const std::regex src(R"re(\ssrc="([^"]*)")re");
  const std::regex link(R"re(<link\b[^>]*\shref="([^"]*)")re");
  int loads = 0;
  for (const std::regex& re : {src, link}) {
    for (auto it = std::sregex_iterator(shell.begin(), shell.end(), re);
         it != std::sregex_iterator(); ++it) {
      const std::string target = (*it)[1].str();
      ++loads;
      ASSERT_TRUE(target.starts_with("/assets/")) << target;
      EXPECT_NE(web::FindPageAsset(target.substr(8)), nullptr) << target;
    }
  }
  EXPECT_GE(loads, 3);  // the script, the style sheet, the icon
  // Nothing the CSP would block, nothing from elsewhere.
  EXPECT_EQ(shell.find("<style"), std::string::npos);
  EXPECT_EQ(shell.find("style="), std::string::npos);
  EXPECT_EQ(shell.find("http:"), std::string::npos);
  EXPECT_EQ(shell.find("https:"), std::string::npos);
  EXPECT_EQ(shell.find("=\"//"), std::string::npos);
  EXPECT_TRUE(std::regex_search(
      shell, std::regex(R"(<script\b[^>]*\ssrc="/assets/app\.js"[^>]*></script>)")));
  EXPECT_FALSE(std::regex_search(shell, std::regex(R"(<script\b(?![^>]*\ssrc=)[^>]*>)")));
  EXPECT_FALSE(std::regex_search(shell, std::regex(R"(\son[a-z]+=)")));
}

TEST(PageRoutesTest, TheShellHasTheSectionsAndTheNotice) {
  const std::string shell = Asset("index.html");
  EXPECT_NE(shell.find(R"(<nav aria-label="Sections">)"), std::string::npos);
  for (const char* link :
       {R"(<a href="/">Incidents</a>)", R"(<a href="/outbox">Outbox</a>)",
        R"(<a href="/silences">Silences</a>)", R"(<a href="/maintenance">Maintenance</a>)",
        R"(<a href="/sources">Sources</a>)"}) {
    EXPECT_NE(shell.find(link), std::string::npos) << link;
  }
  EXPECT_NE(shell.find(R"(<div role="status" id="notice" aria-live="polite">)"), std::string::npos);
  EXPECT_NE(shell.find(R"(<main id="main")"), std::string::npos);
}

// Issue 31: the page logs in once. The token typed in the form goes out once, as a bearer
// header on POST /v1/session; the session is an HttpOnly cookie the script never touches, and
// no script keeps the token in tab or local storage. Changes carry the CSRF header.
TEST(PageRoutesTest, TheScriptTradesTheTokenForASessionAndKeepsItNowhere) {
  const std::string api = Asset("api.js");
  EXPECT_NE(api.find("'Bearer '"), std::string::npos);
  EXPECT_NE(api.find("'/v1/session'"), std::string::npos);
  EXPECT_NE(api.find("credentials: 'same-origin'"), std::string::npos);
  EXPECT_NE(api.find("'X-Quell-Csrf'"), std::string::npos);
  for (const std::string& name : AssetNames()) {
    if (!name.ends_with(".js")) continue;
    const std::string script = Asset(name.c_str());
    EXPECT_EQ(script.find("document.cookie"), std::string::npos) << name;
    EXPECT_EQ(script.find("localStorage"), std::string::npos) << name;
    EXPECT_EQ(script.find("sessionStorage"), std::string::npos) << name;
    // Only api.js sends the token, and only to log in.
    if (name != "api.js") {
      EXPECT_EQ(script.find("Bearer"), std::string::npos) << name;
    }
  }
}

class PageServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    OpsServerOptions options;
    options.token = kToken;  // reads closed: the page must still load
    server_ = std::make_unique<OpsHttpServer>(options, PageRoutes());
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }

  std::unique_ptr<OpsHttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(PageServerTest, ServesTheShellForAnEncodedKeyWithoutAToken) {
  auto answer = client_->Get("/incidents/acme%3Adb%2Fprimary");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200) << answer->body;
  EXPECT_EQ(answer->body, Asset("index.html"));
  EXPECT_EQ(answer->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(answer->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(answer->get_header_value("Content-Security-Policy"), std::string(kPageCsp));
}

TEST_F(PageServerTest, ServesEveryBuiltInFileWithoutAToken) {
  for (const std::string& name : AssetNames()) {
    auto answer = client_->Get("/assets/" + name);
    ASSERT_TRUE(answer) << name;
    EXPECT_EQ(answer->status, 200) << name;
    EXPECT_EQ(answer->get_header_value("Content-Type"), TypeOf(name)) << name;
    EXPECT_EQ(answer->body, Asset(name.c_str())) << name;
    EXPECT_EQ(answer->get_header_value("ETag"), web::FindPageAsset(name)->etag) << name;
  }
}

TEST_F(PageServerTest, RevalidatesWithTheEtag) {
  auto first = client_->Get("/assets/app.css");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200);
  const std::string etag = first->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());
  auto again = client_->Get("/assets/app.css", {{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  EXPECT_EQ(again->get_header_value("ETag"), etag);
}

TEST_F(PageServerTest, UnknownPathsStayJson404s) {
  auto answer = client_->Get("/assets/missing.js");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 404);
  EXPECT_EQ(answer->get_header_value("Content-Type"), "application/json");
}

}  // namespace page_routes_test
}  // namespace quell::http_server
