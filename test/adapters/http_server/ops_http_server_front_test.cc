// The ops server's front under clients that do not play fair, on real loopback sockets: slow
// bodies on public routes beside probes and token holders, the cap on unauthenticated requests,
// each route's body limit, large form bodies, bytes that are not UTF-8, the Host check with
// open reads, and the security headers of HTML answers.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "quell/adapters/http_server/ops_http_server.h"

namespace quell::http_server {
namespace ops_http_server_front_test {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Steady = std::chrono::steady_clock;

constexpr const char* kToken = "front-test-token-0123456789";

app::OpsResponse Ok(std::string body) {
  return app::OpsResponse{
      .status = 200, .content_type = "application/json", .body = std::move(body)};
}

// The shape of the daemon's table: probes, a read that needs the token, a public callback
// route and a public HTML page; every handler counts its calls.
struct Table {
  std::atomic<int> calls{0};
  std::vector<app::OpsRoute> routes;

  Table() {
    for (const char* path : {"/healthz", "/readyz"}) {
      routes.push_back(app::OpsRoute{.method = "GET",
                                     .pattern = path,
                                     .write = false,
                                     .handler = [](const app::OpsRequest&) { return Ok("{}"); },
                                     .is_public = true});
    }
    routes.push_back(app::OpsRoute{.method = "GET",
                                   .pattern = "/v1/incidents(?:/(.+))?",
                                   .write = false,
                                   .handler = [this](const app::OpsRequest& r) {
                                     ++calls;
                                     std::string body = "path=" + r.path;
                                     for (const auto& [name, value] : r.query) {
                                       body.append(" ").append(name).append("=").append(value);
                                     }
                                     return Ok(body);
                                   }});
    routes.push_back(app::OpsRoute{.method = "POST",
                                   .pattern = "/v1/ack/(.+)",
                                   .write = false,
                                   .handler =
                                       [this](const app::OpsRequest& r) {
                                         ++calls;
                                         return Ok(std::to_string(r.body.size()));
                                       },
                                   .is_public = true});
    routes.push_back(app::OpsRoute{.method = "GET",
                                   .pattern = "/page",
                                   .write = false,
                                   .handler =
                                       [](const app::OpsRequest&) {
                                         return app::OpsResponse{
                                             .status = 200,
                                             .content_type = "text/html; charset=utf-8",
                                             .body = "<!doctype html><p>hi</p>"};
                                       },
                                   .is_public = true});
  }
};

int Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& text) {
  return ::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
}

// What the server sent on `fd` until it closed it or `wait` passed, and whether it closed it.
struct Heard {
  std::string bytes;
  bool closed = false;
};
Heard Listen(int fd, milliseconds wait) {
  Heard heard;
  const auto until = Steady::now() + wait;
  for (;;) {
    const auto left = std::chrono::duration_cast<milliseconds>(until - Steady::now());
    if (left.count() <= 0) return heard;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return heard;
    char buffer[4096];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      heard.closed = true;
      return heard;
    }
    heard.bytes.append(buffer, static_cast<size_t>(n));
  }
}

// Sends `request` on a fresh connection (it should say Connection: close) and returns all of
// the answer.
std::string Exchange(int port, const std::string& request) {
  const int fd = Connect(port);
  if (fd < 0) return "";
  std::string answer;
  if (SendAll(fd, request)) answer = Listen(fd, seconds(5)).bytes;
  ::close(fd);
  return answer;
}

std::unique_ptr<httplib::Client> ClientFor(int port) {
  auto client = std::make_unique<httplib::Client>("127.0.0.1", port);
  client->set_connection_timeout(5, 0);
  client->set_read_timeout(5, 0);
  return client;
}

// A GET on a fresh connection: how long it took, or nullopt without a 200.
std::optional<Steady::duration> TimedGet(int port, const std::string& path,
                                         const httplib::Headers& headers = {}) {
  auto client = ClientFor(port);
  const auto start = Steady::now();
  auto r = client->Get(path, headers);
  if (!r || r->status != 200) return std::nullopt;
  return Steady::now() - start;
}

// Clients that declare a body on a public route and send one byte of it every two seconds.
class SlowBodies {
 public:
  SlowBodies(int port, int count, const std::string& path, size_t declared) {
    for (int i = 0; i < count; ++i) {
      const int fd = Connect(port);
      if (fd < 0) continue;
      (void)SendAll(fd, "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                            std::to_string(declared) +
                            "\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nx");
      fds_.push_back(fd);
    }
    dribble_ = std::thread([this] {
      while (!stop_) {
        for (int i = 0; i < 20 && !stop_; ++i) std::this_thread::sleep_for(milliseconds(100));
        for (const int fd : fds_) (void)SendAll(fd, "x");
      }
    });
  }
  ~SlowBodies() {
    stop_ = true;
    dribble_.join();
    for (const int fd : fds_) ::close(fd);
  }
  SlowBodies(const SlowBodies&) = delete;
  SlowBodies& operator=(const SlowBodies&) = delete;
  const std::vector<int>& fds() const { return fds_; }

 private:
  std::vector<int> fds_;
  std::atomic<bool> stop_{false};
  std::thread dribble_;
};

class OpsHttpServerFrontTest : public ::testing::Test {
 protected:
  void StartServer(OpsServerOptions options) {
    options.listen = "127.0.0.1:0";
    if (options.token.empty()) options.token = kToken;
    server_ = std::make_unique<OpsHttpServer>(std::move(options), table_.routes);
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    port_ = *port;
  }
  static httplib::Headers Bearer() { return {{"Authorization", std::string("Bearer ") + kToken}}; }

  Table table_;
  std::unique_ptr<OpsHttpServer> server_;
  int port_ = 0;
};

// Issue 30: four such clients held the operator API for 28 s; 256 of them failed the probes.
TEST_F(OpsHttpServerFrontTest, SixtyFourSlowBodiesDelayNeitherProbesNorTokenHolders) {
  StartServer({});
  SlowBodies slow(port_, 64, "/v1/ack/x", size_t{100} * 1000);
  ASSERT_EQ(slow.fds().size(), 64U);
  // Time to pass, not a condition: the server shows no count of the bodies it is reading, and
  // the probes below must meet all 64 under way.
  std::this_thread::sleep_for(milliseconds(300));
  for (int round = 0; round < 3; ++round) {
    const auto healthz = TimedGet(port_, "/healthz");
    ASSERT_TRUE(healthz.has_value()) << "round " << round;
    EXPECT_LT(*healthz, seconds(1)) << "round " << round;
    const auto readyz = TimedGet(port_, "/readyz");
    ASSERT_TRUE(readyz.has_value()) << "round " << round;
    EXPECT_LT(*readyz, seconds(1)) << "round " << round;
    const auto incidents = TimedGet(port_, "/v1/incidents", Bearer());
    ASSERT_TRUE(incidents.has_value()) << "round " << round;
    EXPECT_LT(*incidents, seconds(2)) << "round " << round;
    // Time has to pass: the rounds are spread over the dribble's 2 s beat.
    if (round < 2) std::this_thread::sleep_for(milliseconds(1000));
  }
  // The slow clients are still connected, waiting their turn at no one's expense.
  for (const int fd : slow.fds()) EXPECT_FALSE(Listen(fd, milliseconds(1)).closed);
}

// More slow clients than connections may be open (256): the oldest unauthenticated requests
// make room, and the probes and token holders still get in.
TEST_F(OpsHttpServerFrontTest, ThreeHundredSlowBodiesStillLeaveRoomForProbesAndTokenHolders) {
  StartServer({});
  SlowBodies slow(port_, 300, "/v1/ack/x", size_t{100} * 1000);
  ASSERT_EQ(slow.fds().size(), 300U);
  std::this_thread::sleep_for(milliseconds(300));
  const auto healthz = TimedGet(port_, "/healthz");
  ASSERT_TRUE(healthz.has_value());
  EXPECT_LT(*healthz, seconds(1));
  const auto incidents = TimedGet(port_, "/v1/incidents", Bearer());
  ASSERT_TRUE(incidents.has_value());
  EXPECT_LT(*incidents, seconds(2));
  // The first were dropped to make room, the last are still waiting.
  const Heard first = Listen(slow.fds().front(), seconds(1));
  EXPECT_TRUE(first.closed);
  EXPECT_EQ(first.bytes.rfind("HTTP/1.1 503", 0), 0U) << first.bytes;
  EXPECT_FALSE(Listen(slow.fds().back(), milliseconds(1)).closed);
}

// Unauthenticated handlers stuck (a public route's handler waiting on the store, say) leave
// the workers of the token holders and the probes free.
TEST_F(OpsHttpServerFrontTest, StuckUnauthenticatedHandlersDelayNeitherProbesNorTokenHolders) {
  // Released however the test ends, before the server stops (it waits for its handlers).
  struct Gate {
    std::mutex mutex;
    std::condition_variable cv;
    bool open = false;
    int entered = 0;  // handlers that reached the gate
    void Open() {
      {
        const std::lock_guard<std::mutex> lock(mutex);
        open = true;
      }
      cv.notify_all();
    }
  };
  auto gate = std::make_shared<Gate>();
  for (app::OpsRoute& route : table_.routes) {
    if (route.pattern != "/page") continue;
    route.handler = [gate](const app::OpsRequest&) {
      std::unique_lock<std::mutex> lock(gate->mutex);
      ++gate->entered;
      gate->cv.notify_all();
      gate->cv.wait(lock, [&] { return gate->open; });
      return Ok("{}");
    };
  }
  StartServer({});
  std::vector<int> stuck;
  const auto release = [&] {
    gate->Open();
    for (const int fd : stuck) ::close(fd);
  };
  for (int i = 0; i < 16; ++i) {
    const int fd = Connect(port_);
    if (fd >= 0) stuck.push_back(fd);
    if (fd >= 0) (void)SendAll(fd, "GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  }
  {
    // Both unauthenticated workers (OpsServerOptions::unauthenticated_threads) are held.
    std::unique_lock<std::mutex> lock(gate->mutex);
    EXPECT_TRUE(gate->cv.wait_for(lock, seconds(10), [&] { return gate->entered >= 2; }));
  }
  const auto healthz = TimedGet(port_, "/healthz");
  const auto incidents = TimedGet(port_, "/v1/incidents", Bearer());
  release();
  EXPECT_EQ(stuck.size(), 16U);
  ASSERT_TRUE(healthz.has_value());
  EXPECT_LT(*healthz, seconds(1));
  ASSERT_TRUE(incidents.has_value());
  EXPECT_LT(*incidents, seconds(2));
}

// Past max_unauthenticated the oldest unauthenticated request still reading its body is
// dropped (503, closed) for the newcomer; the others are left alone.
TEST_F(OpsHttpServerFrontTest, PastTheUnauthenticatedCapTheOldestIsDropped) {
  StartServer({.max_unauthenticated = 4});
  std::vector<int> fds;
  const auto open_one = [&] {
    const int fd = Connect(port_);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(SendAll(fd,
                        "POST /v1/ack/x HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        "Content-Length: 1000\r\n\r\nab"));
    fds.push_back(fd);
    std::this_thread::sleep_for(milliseconds(100));  // admitted in this order
  };
  for (int i = 0; i < 4; ++i) open_one();
  for (const int fd : fds) EXPECT_FALSE(Listen(fd, milliseconds(50)).closed);
  open_one();
  const Heard first = Listen(fds[0], seconds(2));
  EXPECT_TRUE(first.closed);
  EXPECT_EQ(first.bytes.rfind("HTTP/1.1 503", 0), 0U) << first.bytes;
  EXPECT_NE(first.bytes.find(R"({"error":{"code":"unavailable","message":")"), std::string::npos)
      << first.bytes;
  for (size_t i = 1; i < fds.size(); ++i) {
    EXPECT_FALSE(Listen(fds[i], milliseconds(50)).closed) << i;
  }
  open_one();
  EXPECT_TRUE(Listen(fds[1], seconds(2)).closed);
  EXPECT_FALSE(Listen(fds[2], milliseconds(50)).closed);
  // A token holder is not counted: it is served whatever the unauthenticated ones do.
  const auto incidents = TimedGet(port_, "/v1/incidents", Bearer());
  ASSERT_TRUE(incidents.has_value());
  EXPECT_EQ(table_.calls, 1);
  for (const int fd : fds) ::close(fd);
}

// A body slower than its deadline is cut with a 408, but the deadline grows with the declared
// size at the minimum rate: a large body that keeps that rate is taken whole.
TEST_F(OpsHttpServerFrontTest, TheBodyDeadlineFitsTheDeclaredSizeAtTheMinimumRate) {
  StartServer({.body_timeout = milliseconds(300), .min_body_rate = 1000});
  const int slow = Connect(port_);
  ASSERT_GE(slow, 0);
  ASSERT_TRUE(SendAll(slow, "POST /v1/ack/x HTTP/1.1\r\nHost: q\r\nContent-Length: 10\r\n\r\nab"));
  const Heard cut = Listen(slow, seconds(3));
  EXPECT_TRUE(cut.closed);
  EXPECT_EQ(cut.bytes.rfind("HTTP/1.1 408", 0), 0U) << cut.bytes;
  ::close(slow);

  // 2000 bytes: a deadline of 2 s at 1000 bytes/s; sent at ~2000 bytes/s over ~1 s.
  const int steady = Connect(port_);
  ASSERT_GE(steady, 0);
  ASSERT_TRUE(SendAll(steady,
                      "POST /v1/ack/x HTTP/1.1\r\nHost: q\r\nConnection: close\r\n"
                      "Content-Length: 2000\r\n\r\n"));
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(SendAll(steady, std::string(200, 'y')));
    std::this_thread::sleep_for(milliseconds(100));
  }
  const Heard whole = Listen(steady, seconds(3));
  EXPECT_EQ(whole.bytes.rfind("HTTP/1.1 200", 0), 0U) << whole.bytes;
  EXPECT_NE(whole.bytes.find("\r\n\r\n2000"), std::string::npos) << whole.bytes;
  ::close(steady);
}

// Each route's own limit, on the declared size before any of the body is read, and on a
// chunked body as it arrives.
TEST_F(OpsHttpServerFrontTest, ABodyOverItsRoutesLimitIs413BeforeItIsRead) {
  for (app::OpsRoute& route : table_.routes) {
    if (route.method == "POST") route.max_body = 1000;
  }
  StartServer({});
  const int fd = Connect(port_);
  ASSERT_GE(fd, 0);
  // The head only: the answer cannot wait for a body that is never sent.
  ASSERT_TRUE(SendAll(fd, "POST /v1/ack/x HTTP/1.1\r\nHost: q\r\nContent-Length: 1001\r\n\r\n"));
  const Heard heard = Listen(fd, seconds(2));
  EXPECT_EQ(heard.bytes.rfind("HTTP/1.1 413", 0), 0U) << heard.bytes;
  EXPECT_NE(heard.bytes.find(R"({"error":{"code":"payload_too_large","message":")"),
            std::string::npos)
      << heard.bytes;
  EXPECT_NE(heard.bytes.find("limit of 1000 bytes"), std::string::npos) << heard.bytes;
  ::close(fd);

  const std::string chunked = Exchange(port_,
                                       "POST /v1/ack/x HTTP/1.1\r\nHost: q\r\n"
                                       "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                       "3e9\r\n" +
                                           std::string(1001, 'z') + "\r\n0\r\n\r\n");
  EXPECT_EQ(chunked.rfind("HTTP/1.1 413", 0), 0U) << chunked;

  auto client = ClientFor(port_);
  auto fits = client->Post("/v1/ack/x", std::string(1000, 'a'), "text/plain");
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->status, 200);
  EXPECT_EQ(fits->body, "1000");
  EXPECT_EQ(table_.calls, 1);
}

// Issue 30 item 5: cpp-httplib capped form-encoded bodies at 8 KiB, and Slack sends the whole
// message with every click.
TEST_F(OpsHttpServerFrontTest, AFormBodyOverEightKiBReachesItsHandler) {
  StartServer({});
  auto client = ClientFor(port_);
  const std::string form = "payload=" + std::string(size_t{40} * 1024, 'p');
  auto r = client->Post("/v1/ack/x", form, "application/x-www-form-urlencoded");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->body, std::to_string(form.size()));
}

// What curl sends for a body over 1 KiB: the head, then the body only after 100 Continue.
TEST_F(OpsHttpServerFrontTest, AnExpectContinueRequestIsToldToGoOn) {
  StartServer({});
  const int fd = Connect(port_);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd,
                      "POST /v1/ack/x HTTP/1.1\r\nHost: q\r\nContent-Length: 5\r\n"
                      "Expect: 100-continue\r\nConnection: close\r\n\r\n"));
  const Heard go_on = Listen(fd, milliseconds(500));
  EXPECT_EQ(go_on.bytes, "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(SendAll(fd, "hello"));
  const Heard answer = Listen(fd, seconds(2));
  EXPECT_EQ(answer.bytes.rfind("HTTP/1.1 200", 0), 0U) << answer.bytes;
  ::close(fd);
}

// Issue 30 item 9: `?condition=%FF` reached the push handler (500) and /v1/incidents/%FF a raw
// nlohmann exception. Bytes that are not UTF-8, raw or percent-encoded, in the path, the query
// or a header value, are a 400 in the error shape before any handler runs.
TEST_F(OpsHttpServerFrontTest, BytesThatAreNotUtf8AreRefusedBeforeAnyHandler) {
  StartServer({});
  const std::string auth = std::string("Authorization: Bearer ") + kToken + "\r\n";
  for (const std::string target :
       {"/v1/incidents/%FF", "/v1/incidents?condition=%FF", "/v1/incidents?%C0%AF=x",
        "/v1/incidents/\xFF", "/v1/incidents/%ED%A0%80", "/v1/incidents?q=%E2%82"}) {
    std::string request = "GET " + target;
    request.append(" HTTP/1.1\r\nHost: q\r\n").append(auth).append("Connection: close\r\n\r\n");
    const std::string answer = Exchange(port_, request);
    EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0U) << target << "\n" << answer;
    EXPECT_NE(answer.find(R"({"error":{"code":"bad_request","message":"the request target )"),
              std::string::npos)
        << target << "\n"
        << answer;
  }
  const std::string header =
      Exchange(port_, "GET /v1/incidents HTTP/1.1\r\nHost: q\r\n" + auth +
                          "X-Slack-Signature: v0=\xFF\xFE\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(header.rfind("HTTP/1.1 400", 0), 0U) << header;
  EXPECT_NE(header.find("the x-slack-signature header is not UTF-8"), std::string::npos) << header;
  const std::string broken_escape =
      Exchange(port_, "GET /v1/incidents?q=50% HTTP/1.1\r\nHost: q\r\n" + auth +
                          "Connection: close\r\n\r\n");
  EXPECT_EQ(broken_escape.rfind("HTTP/1.1 400", 0), 0U) << broken_escape;
  EXPECT_EQ(table_.calls, 0);

  // Valid UTF-8, encoded or not, still reaches the handler decoded.
  const std::string fine = Exchange(port_,
                                    "GET /v1/incidents/caf%C3%A9%2Fx?q=%E2%82%AC+1&q=2 "
                                    "HTTP/1.1\r\nHost: q\r\n" +
                                        auth + "Connection: close\r\n\r\n");
  EXPECT_EQ(fine.rfind("HTTP/1.1 200", 0), 0U) << fine;
  EXPECT_NE(fine.find("path=/v1/incidents/caf\xC3\xA9/x q=\xE2\x82\xAC 1"), std::string::npos)
      << fine;
  EXPECT_EQ(table_.calls, 1);
}

// Issue 30 item 10: with open reads, a page on a name the attacker owns, pointed at this
// server (DNS rebinding), must not read the API: the Host must be ours.
TEST_F(OpsHttpServerFrontTest, WithOpenReadsTheHostMustBeOneOfOurs) {
  StartServer({.open_reads = true, .allowed_hosts = {"quell.example.com"}});
  const auto get = [&](const std::string& path, const std::string& host,
                       const std::string& extra = "") {
    return Exchange(port_, "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra +
                               "Connection: close\r\n\r\n");
  };
  const std::string evil = get("/v1/incidents", "rebind.attacker.example:" + std::to_string(port_));
  EXPECT_EQ(evil.rfind("HTTP/1.1 421", 0), 0U) << evil;
  EXPECT_NE(evil.find(R"({"error":{"code":"misdirected_request","message":")"), std::string::npos)
      << evil;
  EXPECT_EQ(get("/page", "rebind.attacker.example").rfind("HTTP/1.1 421", 0), 0U);
  EXPECT_EQ(table_.calls, 0);
  for (const std::string& host : std::vector<std::string>{
           "127.0.0.1:" + std::to_string(port_), "localhost:" + std::to_string(port_), "[::1]:80",
           "Quell.Example.COM", "quell.example.com.:443", "10.1.2.3:8787"}) {
    EXPECT_EQ(get("/v1/incidents", host).rfind("HTTP/1.1 200", 0), 0U) << host;
  }
  // The token proves the caller is no rebinding page; the probes say nothing.
  EXPECT_EQ(get("/v1/incidents", "rebind.attacker.example",
                std::string("Authorization: Bearer ") + kToken + "\r\n")
                .rfind("HTTP/1.1 200", 0),
            0U);
  EXPECT_EQ(get("/healthz", "rebind.attacker.example").rfind("HTTP/1.1 200", 0), 0U);
}

TEST_F(OpsHttpServerFrontTest, WithoutOpenReadsThereIsNoHostToCheck) {
  StartServer({});
  const std::string page =
      Exchange(port_, "GET /page HTTP/1.1\r\nHost: anything.example\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(page.rfind("HTTP/1.1 200", 0), 0U) << page;
}

// Issue 30 item 10: the ack pages lacked the page's security headers. Every HTML answer gets
// them from the server (a handler's own are kept); every answer gets nosniff.
TEST_F(OpsHttpServerFrontTest, EveryHtmlAnswerCarriesTheSecurityHeaders) {
  table_.routes.push_back(app::OpsRoute{
      .method = "GET",
      .pattern = "/own",
      .write = false,
      .handler =
          [](const app::OpsRequest&) {
            return app::OpsResponse{.status = 200,
                                    .content_type = "text/html",
                                    .body = "<p>own</p>",
                                    .headers = {{"Content-Security-Policy", "default-src 'self'"},
                                                {"Cache-Control", "no-cache"}}};
          },
      .is_public = true});
  StartServer({});
  auto client = ClientFor(port_);
  auto page = client->Get("/page");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  const std::string csp = page->get_header_value("Content-Security-Policy");
  EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("form-action 'self'"), std::string::npos) << csp;
  EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(page->get_header_value("X-Frame-Options"), "DENY");
  EXPECT_EQ(page->get_header_value("Referrer-Policy"), "no-referrer");
  EXPECT_EQ(page->get_header_value("Cache-Control"), "no-store");

  auto own = client->Get("/own");
  ASSERT_TRUE(own);
  EXPECT_EQ(own->get_header_value_count("Content-Security-Policy"), 1U);
  EXPECT_EQ(own->get_header_value("Content-Security-Policy"), "default-src 'self'");
  EXPECT_EQ(own->get_header_value("Cache-Control"), "no-cache");
  EXPECT_EQ(own->get_header_value("Referrer-Policy"), "no-referrer");

  auto json = client->Get("/healthz");
  ASSERT_TRUE(json);
  EXPECT_EQ(json->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_FALSE(json->has_header("Content-Security-Policy"));
}

}  // namespace ops_http_server_front_test
}  // namespace quell::http_server
