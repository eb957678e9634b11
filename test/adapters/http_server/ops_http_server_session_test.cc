// The operator page's login through the ops server on loopback (issue 31): the bearer token
// traded once for a session cookie, the cookie's attributes, the CSRF header a cookie's write
// needs, logout and expiry; spoken to by cpp-httplib's client as a browser would send it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "../../app/fake_clock.h"
#include "quell/adapters/http_server/ops_http_server.h"
#include "quell/adapters/http_server/session_routes.h"
#include "quell/adapters/http_server/session_store.h"

namespace quell::http_server {
namespace ops_http_server_session_test {

constexpr const char* kToken = "s3ssion-token-0123456789";

class NullLog : public core::EventLog {
 public:
  void Log(core::LogLevel, std::string_view, std::initializer_list<core::LogField>) override {}
};

class SessionTest : public ::testing::Test {
 protected:
  void Start(bool secure, bool open_reads = false) {
    sessions_ = std::make_shared<SessionStore>(clock_, std::chrono::hours(12));
    std::vector<app::OpsRoute> routes = SessionRoutes(*sessions_, secure, log_);
    routes.push_back(app::OpsRoute{.method = "GET",
                                   .pattern = "^/v1/things$",
                                   .write = false,
                                   .handler = [](const app::OpsRequest& r) {
                                     return app::OpsResponse{.body = "read by " + r.auth};
                                   }});
    routes.push_back(app::OpsRoute{.method = "POST",
                                   .pattern = "^/v1/things$",
                                   .write = true,
                                   .handler = [this](const app::OpsRequest& r) {
                                     ++writes_;
                                     return app::OpsResponse{.body = "written by " + r.actor};
                                   }});
    server_ = std::make_unique<OpsHttpServer>(OpsServerOptions{.token = kToken,
                                                               .token_name = "oncall",
                                                               .open_reads = open_reads,
                                                               .sessions = sessions_},
                                              std::move(routes));
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  // POST /v1/session with the token; the answer's Set-Cookie.
  std::string LogIn() {
    auto answer = client_->Post(
        "/v1/session", {{"Authorization", std::string("Bearer ") + kToken}, {"X-Quell-Csrf", "1"}},
        "", "application/json");
    EXPECT_TRUE(answer);
    if (!answer) return {};
    EXPECT_EQ(answer->status, 200) << answer->body;
    EXPECT_EQ(answer->get_header_value("Cache-Control"), "no-store");
    return answer->get_header_value("Set-Cookie");
  }
  static std::string CookieOf(const std::string& set_cookie) {
    return set_cookie.substr(0, set_cookie.find(';'));
  }

  testing::FakeClock clock_{core::WallTime(std::chrono::hours(1000))};
  NullLog log_;
  std::atomic<int> writes_{0};
  std::shared_ptr<SessionStore> sessions_;
  std::unique_ptr<OpsHttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(SessionTest, TheTokenBuysASessionCookieThatServesReadsWithoutIt) {
  Start(/*secure=*/false);
  auto before = client_->Get("/v1/things");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 401);
  const std::string set_cookie = LogIn();
  // A random 256-bit id, for the whole site, out of the script's reach, never sent by another
  // site's page, living 12 hours; not Secure on plain http (the browser would drop it).
  EXPECT_TRUE(std::regex_match(
      set_cookie, std::regex("quell_session=[0-9a-f]{64}; Path=/; Max-Age=43200; HttpOnly; "
                             "SameSite=Strict")))
      << set_cookie;
  auto read = client_->Get("/v1/things", {{"Cookie", "theme=dark; " + CookieOf(set_cookie)}});
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200) << read->body;
  EXPECT_EQ(read->body, "read by session");
  auto who = client_->Get("/v1/session", {{"Cookie", CookieOf(set_cookie)}});
  ASSERT_TRUE(who);
  EXPECT_EQ(who->body, R"({"auth":"session"})");
  // Another id, however shaped, is nobody's.
  std::string forged = CookieOf(set_cookie);
  forged.back() = forged.back() == '0' ? '1' : '0';
  auto refused = client_->Get("/v1/things", {{"Cookie", forged}});
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  auto nobody = client_->Get("/v1/session", {{"Cookie", forged}});
  ASSERT_TRUE(nobody);
  EXPECT_EQ(nobody->body, R"({"auth":null})");
  // Two logins are two sessions.
  EXPECT_NE(CookieOf(LogIn()), CookieOf(set_cookie));
}

TEST_F(SessionTest, TheCookieIsSecureWhenThePageIsServedOverHttps) {
  Start(/*secure=*/true);
  const std::string set_cookie = LogIn();
  EXPECT_NE(set_cookie.find("; HttpOnly; SameSite=Strict; Secure"), std::string::npos)
      << set_cookie;
}

TEST_F(SessionTest, AWrongTokenBuysNoSessionAndASessionBuysNoOther) {
  Start(/*secure=*/false);
  auto wrong = client_->Post("/v1/session", {{"Authorization", "Bearer not-the-token"}}, "",
                             "application/json");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_EQ(wrong->get_header_value("Set-Cookie"), "");
  const std::string cookie = CookieOf(LogIn());
  auto again =
      client_->Post("/v1/session", {{"Cookie", cookie}, {"X-Quell-Csrf", "1"}}, "", "text/plain");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 401) << again->body;
  EXPECT_EQ(again->get_header_value("Set-Cookie"), "");
}

// CSRF: a page on another site can make a browser POST a form here; SameSite=Strict keeps the
// cookie off such a request, and a change made with the cookie must also carry X-Quell-Csrf,
// which only this origin's script can add without a CORS preflight (never answered).
TEST_F(SessionTest, AChangeMadeWithTheCookieNeedsTheCsrfHeader) {
  Start(/*secure=*/false);
  const std::string cookie = CookieOf(LogIn());
  auto form =
      client_->Post("/v1/things", {{"Cookie", cookie}}, "a=1", "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 403) << form->body;
  EXPECT_NE(form->body.find("X-Quell-Csrf"), std::string::npos) << form->body;
  EXPECT_EQ(writes_.load(), 0);
  auto page = client_->Post("/v1/things", {{"Cookie", cookie}, {"X-Quell-Csrf", "1"}}, "{}",
                            "application/json");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200) << page->body;
  EXPECT_EQ(page->body, "written by oncall");
  EXPECT_EQ(writes_.load(), 1);
  // The bearer token needs no such header: no browser sends it by itself.
  auto tool = client_->Post("/v1/things", {{"Authorization", std::string("Bearer ") + kToken}},
                            "{}", "application/json");
  ASSERT_TRUE(tool);
  EXPECT_EQ(tool->status, 200);
}

TEST_F(SessionTest, LogoutEndsTheSessionAndClearsTheCookie) {
  Start(/*secure=*/false);
  const std::string cookie = CookieOf(LogIn());
  auto out = client_->Delete("/v1/session", {{"Cookie", cookie}, {"X-Quell-Csrf", "1"}});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->status, 200) << out->body;
  EXPECT_EQ(out->get_header_value("Set-Cookie"),
            "quell_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
  auto after = client_->Get("/v1/things", {{"Cookie", cookie}});
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 401);
}

TEST_F(SessionTest, ASessionEndsTwelveHoursAfterItsLogin) {
  Start(/*secure=*/false);
  const std::string cookie = CookieOf(LogIn());
  clock_.SleepFor(std::chrono::hours(12) - std::chrono::seconds(1));
  auto still = client_->Get("/v1/things", {{"Cookie", cookie}});
  ASSERT_TRUE(still);
  EXPECT_EQ(still->status, 200);
  clock_.SleepFor(std::chrono::seconds(1));
  auto expired = client_->Get("/v1/things", {{"Cookie", cookie}});
  ASSERT_TRUE(expired);
  EXPECT_EQ(expired->status, 401);
}

TEST(SessionCookieTest, TheSessionIdIsReadFromAnyPlaceInTheCookieHeader) {
  EXPECT_EQ(SessionIdOf("quell_session=abc"), "abc");
  EXPECT_EQ(SessionIdOf("a=1; quell_session=abc; b=2"), "abc");
  EXPECT_EQ(SessionIdOf("xquell_session=abc; quell_sessions=d"), "");
  EXPECT_EQ(SessionIdOf(""), "");
}

}  // namespace ops_http_server_session_test
}  // namespace quell::http_server
