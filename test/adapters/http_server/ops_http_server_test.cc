// The ops server on a real loopback port, spoken to over real HTTP by cpp-httplib's client.
#include "quell/adapters/http_server/ops_http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace quell::http_server {
namespace {

constexpr const char* kToken = "s3cret-token-0123456789";

std::vector<app::OpsRoute> Routes(std::atomic<int>& writes) {
  std::vector<app::OpsRoute> routes;
  routes.push_back(app::OpsRoute{.method = "GET",
                                 .pattern = "/healthz",
                                 .write = false,
                                 .handler = [](const app::OpsRequest&) {
                                   return app::OpsResponse{.status = 200,
                                                           .content_type = "application/json",
                                                           .body = R"({"status":"ok"})"};
                                 }});
  routes.push_back(app::OpsRoute{
      .method = "POST",
      .pattern = "/v1/incidents/([^/]+)/ack",
      .write = true,
      .handler = [&writes](const app::OpsRequest& r) {
        ++writes;
        std::string body = r.method + " " + r.captures.at(0) + " " + r.body + " " + r.actor;
        auto it = r.query.find("by");
        if (it != r.query.end()) body += " by=" + it->second;
        return app::OpsResponse{.status = 202, .content_type = "text/plain", .body = body};
      }});
  routes.push_back(app::OpsRoute{.method = "GET",
                                 .pattern = "/livez",
                                 .write = false,
                                 .handler =
                                     [](const app::OpsRequest&) {
                                       return app::OpsResponse{.status = 200,
                                                               .content_type = "application/json",
                                                               .body = R"({"status":"ok"})"};
                                     },
                                 .is_public = true});
  routes.push_back(app::OpsRoute{.method = "GET",
                                 .pattern = "/boom",
                                 .write = false,
                                 .handler = [](const app::OpsRequest&) -> app::OpsResponse {
                                   throw std::runtime_error("handler bug");
                                 }});
  return routes;
}

// Sends `request` as raw bytes (no client library adds a Content-Length) and returns the whole
// answer, status line to body; the request should say Connection: close.
std::string RawExchange(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size())) {
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      answer.append(buffer, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return answer;
}

class OpsHttpServerTest : public ::testing::Test {
 protected:
  void StartServer(OpsServerOptions options) {
    server_ = std::make_unique<OpsHttpServer>(std::move(options), Routes(writes_));
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    ASSERT_GT(*port, 0);
    EXPECT_EQ(server_->port(), *port);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  httplib::Headers Bearer(const std::string& token) {
    return {{"Authorization", "Bearer " + token}};
  }

  std::atomic<int> writes_{0};
  std::unique_ptr<OpsHttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(OpsHttpServerTest, APublicRouteAnswersWithoutATokenEvenWhenReadsAreClosed) {
  StartServer(
      {.listen = "127.0.0.1:0", .token = "", .token_name = "", .open_reads = false, .threads = 2});
  auto probe = client_->Get("/livez");
  ASSERT_TRUE(probe);
  EXPECT_EQ(probe->status, 200);
  auto closed = client_->Get("/healthz");  // an ordinary read: no token configured, so refused
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->status, 403);
}

TEST_F(OpsHttpServerTest, ClosedReadsNeedTheToken) {
  StartServer({.listen = "127.0.0.1:0",
               .token = kToken,
               .token_name = "",
               .open_reads = false,
               .threads = 2});
  auto denied = client_->Get("/healthz");
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 401);
  EXPECT_EQ(denied->get_header_value("Content-Type"), "application/json");
  EXPECT_NE(denied->body.find(R"("code":"unauthorized")"), std::string::npos) << denied->body;
  EXPECT_EQ(denied->body.find(kToken), std::string::npos);
  auto wrong = client_->Get("/healthz", Bearer("s3cret-token-0123456780"));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto ok = client_->Get("/healthz", Bearer(kToken));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, R"({"status":"ok"})");
  auto lower_scheme =
      client_->Get("/healthz", {{"Authorization", std::string("bearer ") + kToken}});
  ASSERT_TRUE(lower_scheme);
  EXPECT_EQ(lower_scheme->status, 200);
}

TEST_F(OpsHttpServerTest, OpenReadsStillGuardWrites) {
  StartServer({.listen = "127.0.0.1:0",
               .token = kToken,
               .token_name = "",
               .open_reads = true,
               .threads = 2});
  auto read = client_->Get("/healthz");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200);

  auto anonymous = client_->Post("/v1/incidents/acme%3Ax/ack", "{}", "application/json");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_EQ(writes_, 0);

  auto write = client_->Post("/v1/incidents/acme%3Ax/ack?by=ann%20b", Bearer(kToken),
                             R"({"reason":"x"})", "application/json");
  ASSERT_TRUE(write);
  EXPECT_EQ(write->status, 202);
  EXPECT_EQ(write->body, R"(POST acme:x {"reason":"x"} http by=ann b)");
  EXPECT_EQ(write->get_header_value("Content-Type"), "text/plain");
  EXPECT_EQ(writes_, 1);
}

TEST_F(OpsHttpServerTest, NoTokenRefusesWrites) {
  StartServer(
      {.listen = "127.0.0.1:0", .token = "", .token_name = "", .open_reads = true, .threads = 2});
  auto write = client_->Post("/v1/incidents/a/ack", Bearer(""), "{}", "application/json");
  ASSERT_TRUE(write);
  EXPECT_EQ(write->status, 403);
  EXPECT_NE(write->body.find(R"("code":"forbidden")"), std::string::npos);
  EXPECT_EQ(writes_, 0);
  auto read = client_->Get("/healthz");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200);
}

TEST_F(OpsHttpServerTest, UnknownPathWrongMethodAndThrowingHandler) {
  StartServer({.listen = "127.0.0.1:0",
               .token = kToken,
               .token_name = "",
               .open_reads = true,
               .threads = 2});
  auto missing = client_->Get("/nope");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->body.find(R"("code":"not_found")"), std::string::npos);
  // The whole path must match: a prefix of a route is not that route.
  auto prefix = client_->Get("/healthz/extra");
  ASSERT_TRUE(prefix);
  EXPECT_EQ(prefix->status, 404);

  auto method = client_->Delete("/healthz");
  ASSERT_TRUE(method);
  EXPECT_EQ(method->status, 405);
  EXPECT_EQ(method->get_header_value("Allow"), "GET");
  EXPECT_NE(method->body.find(R"("code":"method_not_allowed")"), std::string::npos);

  auto boom = client_->Get("/boom");
  ASSERT_TRUE(boom);
  EXPECT_EQ(boom->status, 500);
  EXPECT_NE(boom->body.find(R"("code":"internal")"), std::string::npos);
  EXPECT_EQ(boom->body.find("handler bug"), std::string::npos);
}

TEST_F(OpsHttpServerTest, APostWithoutABodyReachesItsHandlerWithAnEmptyOne) {
  StartServer({.listen = "127.0.0.1:0",
               .token = kToken,
               .token_name = "",
               .open_reads = false,
               .threads = 2});
  // What `curl -X POST` sends: no Content-Length, no body.
  const std::string answer = RawExchange(server_->port(),
                                         "POST /v1/incidents/acme/ack HTTP/1.1\r\nHost: q\r\n"
                                         "Authorization: Bearer " +
                                             std::string(kToken) + "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(answer.rfind("HTTP/1.1 202", 0), 0u) << answer;
  EXPECT_NE(answer.find("POST acme  http"), std::string::npos) << answer;
  EXPECT_EQ(writes_, 1);
}

TEST_F(OpsHttpServerTest, TheTokenIsCheckedBeforeTheBody) {
  StartServer({.listen = "127.0.0.1:0",
               .token = kToken,
               .token_name = "",
               .open_reads = false,
               .threads = 2});
  const std::string answer =
      RawExchange(server_->port(),
                  "POST /v1/incidents/acme/ack HTTP/1.1\r\nHost: q\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(answer.rfind("HTTP/1.1 401", 0), 0u) << answer;
  EXPECT_NE(answer.find(R"({"error":{"code":"unauthorized","message":")"), std::string::npos)
      << answer;
  EXPECT_EQ(writes_, 0);
}

TEST_F(OpsHttpServerTest, RefusalsOfTheServerItselfUseTheErrorShape) {
  StartServer({.listen = "127.0.0.1:0",
               .token = kToken,
               .token_name = "",
               .open_reads = false,
               .threads = 2});
  auto big = client_->Post("/v1/incidents/acme/ack", Bearer(kToken),
                           std::string((size_t{1} << 20) + 1, 'x'), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_NE(big->body.find(R"({"error":{"code":"payload_too_large","message":")"),
            std::string::npos)
      << big->body;
  EXPECT_EQ(writes_, 0);

  const std::string garbage = RawExchange(server_->port(), "NOT HTTP AT ALL\r\n\r\n");
  EXPECT_EQ(garbage.rfind("HTTP/1.1 400", 0), 0u) << garbage;
  EXPECT_NE(garbage.find(R"({"error":{"code":"bad_request","message":")"), std::string::npos)
      << garbage;
}

TEST_F(OpsHttpServerTest, TheTokenNameIsTheActor) {
  StartServer({.listen = "127.0.0.1:0",
               .token = kToken,
               .token_name = "ops-oncall",
               .open_reads = false,
               .threads = 2});
  auto write = client_->Post("/v1/incidents/a/ack", Bearer(kToken), "{}", "application/json");
  ASSERT_TRUE(write);
  EXPECT_EQ(write->status, 202);
  EXPECT_EQ(write->body, "POST a {} ops-oncall");
}

TEST_F(OpsHttpServerTest, StopRightAfterStartReturnsAndFreesThePort) {
  StartServer({.listen = "127.0.0.1:0",
               .token = kToken,
               .token_name = "",
               .open_reads = true,
               .threads = 1});
  server_->Stop();
  server_->Stop();  // idempotent
  auto after = client_->Get("/healthz");
  EXPECT_FALSE(after);
}

TEST(OpsHttpServerStartTest, RejectsBadAddressesAndPatterns) {
  std::atomic<int> writes{0};
  for (const char* listen : {"127.0.0.1", "127.0.0.1:http", "127.0.0.1:70000", ":80", "::1:80"}) {
    OpsHttpServer server(
        {.listen = listen, .token = "", .token_name = "", .open_reads = true, .threads = 1},
        Routes(writes));
    auto port = server.Start();
    ASSERT_FALSE(port.ok()) << listen;
    EXPECT_EQ(port.error().code, core::ErrorCode::kInvalidArgument) << listen;
  }
  std::vector<app::OpsRoute> bad = {
      app::OpsRoute{.method = "GET", .pattern = "(", .write = false, .handler = nullptr}};
  OpsHttpServer server(
      {.listen = "127.0.0.1:0", .token = "", .token_name = "", .open_reads = true, .threads = 1},
      bad);
  auto port = server.Start();
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.error().code, core::ErrorCode::kInvalidArgument);
}

// Issue 13: with cpp-httplib's default SO_REUSEPORT a second server bound the same port.
TEST(OpsHttpServerStartTest, ASecondServerOnATakenPortFailsToStartAndSaysWhy) {
  std::atomic<int> writes{0};
  OpsHttpServer first(
      {.listen = "127.0.0.1:0", .token = "", .token_name = "", .open_reads = true, .threads = 1},
      Routes(writes));
  auto port = first.Start();
  ASSERT_TRUE(port.ok()) << port.error().message;
  const std::string listen = "127.0.0.1:" + std::to_string(*port);
  OpsHttpServer second(
      {.listen = listen, .token = "", .token_name = "", .open_reads = true, .threads = 1},
      Routes(writes));
  auto taken = second.Start();
  ASSERT_FALSE(taken.ok()) << "two servers listen on " << listen;
  EXPECT_EQ(taken.error().code, core::ErrorCode::kUnavailable);
  EXPECT_EQ(taken.error().message,
            "cannot listen on " + listen +
                ": the address is already in use (another quell run, or another program, holds "
                "it)");
  first.Stop();
  // Once the first has stopped, the port is free again at once (SO_REUSEADDR: no TIME_WAIT wait).
  OpsHttpServer third(
      {.listen = listen, .token = "", .token_name = "", .open_reads = true, .threads = 1},
      Routes(writes));
  EXPECT_TRUE(third.Start().ok());
}

TEST(OpsHttpServerStartTest, ParsesListenAddresses) {
  auto v4 = ParseListenAddress("127.0.0.1:9464");
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->first, "127.0.0.1");
  EXPECT_EQ(v4->second, 9464);
  auto v6 = ParseListenAddress("[::1]:0");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->first, "::1");
  EXPECT_EQ(v6->second, 0);
}

TEST(ConstantTimeEqualsTest, EqualOnlyForTheSameBytes) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", ""));
  EXPECT_FALSE(ConstantTimeEquals("", "x"));
}

}  // namespace
}  // namespace quell::http_server
