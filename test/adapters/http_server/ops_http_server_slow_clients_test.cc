// The ops server under clients that hold connections without finishing a request: slow-header
// senders and idle sockets. Four of either used to take every worker and leave /healthz
// unanswered, so a supervisor restarted a daemon that was fine. Real sockets on loopback.
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
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "quell/adapters/http_server/ops_http_server.h"

namespace quell::http_server {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Steady = std::chrono::steady_clock;

std::vector<app::OpsRoute> Routes() {
  std::vector<app::OpsRoute> routes;
  for (const char* path : {"/healthz", "/readyz"}) {
    routes.push_back(app::OpsRoute{.method = "GET",
                                   .pattern = path,
                                   .write = false,
                                   .handler =
                                       [](const app::OpsRequest&) {
                                         return app::OpsResponse{.status = 200,
                                                                 .content_type = "application/json",
                                                                 .body = R"({"status":"ok"})"};
                                       },
                                   .is_public = true});
  }
  return routes;
}

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

// True when the server closed `fd` (EOF or reset) within `wait`; bytes it sent first (a 408)
// are read past.
bool ClosedByServer(int fd, std::chrono::milliseconds wait) {
  const auto until = Steady::now() + wait;
  for (;;) {
    const auto left = std::chrono::duration_cast<milliseconds>(until - Steady::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buffer[512];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return true;
  }
}

// One GET /healthz on a fresh connection; the time it took, or nullopt without a 200.
std::optional<Steady::duration> TimedHealthz(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(5, 0);
  const auto start = Steady::now();
  auto r = client.Get("/healthz");
  if (!r || r->status != 200) return std::nullopt;
  return Steady::now() - start;
}

TEST(OpsHttpServerSlowClientsTest, HealthzAnswersWithinASecondBesideSlowHeadersAndIdleSockets) {
  OpsServerOptions options;
  options.listen = "127.0.0.1:0";
  options.header_timeout = seconds(3);
  OpsHttpServer server(options, Routes());
  auto port = server.Start();
  ASSERT_TRUE(port.ok()) << port.error().message;

  // 8 clients that start a request and send one more header line every second, never the
  // blank line that ends the head: each read succeeds, so a per-read timeout never fires.
  std::vector<int> slow;
  for (int i = 0; i < 8; ++i) {
    const int fd = Connect(*port);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(SendAll(fd, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    slow.push_back(fd);
  }
  std::atomic<bool> stop{false};
  std::thread dribble([&] {
    for (int line = 0; !stop; ++line) {
      for (const int fd : slow) (void)SendAll(fd, "X-Slow-" + std::to_string(line) + ": 1\r\n");
      for (int i = 0; i < 10 && !stop; ++i) std::this_thread::sleep_for(milliseconds(100));
    }
  });
  // 200 clients that connect and say nothing.
  std::vector<int> idle;
  for (int i = 0; i < 200; ++i) {
    const int fd = Connect(*port);
    ASSERT_GE(fd, 0);
    idle.push_back(fd);
  }

  // While all of them are held open: twice, a second apart.
  for (int probe = 0; probe < 2; ++probe) {
    const auto took = TimedHealthz(*port);
    EXPECT_TRUE(took.has_value()) << "probe " << probe << ": no 200";
    if (took) {
      EXPECT_LT(*took, seconds(1)) << "probe " << probe;
    }
    // Time has to pass here: the second probe comes a second into the dribble, when every
    // slow head has grown by a line and none is complete.
    if (probe == 0) std::this_thread::sleep_for(milliseconds(1000));
  }

  // A head not finished within header_timeout is cut, however steadily it trickles in.
  for (const int fd : slow) EXPECT_TRUE(ClosedByServer(fd, seconds(4)));
  stop = true;
  dribble.join();
  for (const int fd : slow) ::close(fd);
  for (const int fd : idle) ::close(fd);
  server.Stop();
}

// Past max_connections the connection that has waited longest for its head makes room: a
// flood of idle sockets cannot hold the probe out, however many there are.
TEST(OpsHttpServerSlowClientsTest, PastTheConnectionLimitTheOldestIdleSocketMakesRoom) {
  OpsServerOptions options;
  options.listen = "127.0.0.1:0";
  options.max_connections = 16;
  OpsHttpServer server(options, Routes());
  auto port = server.Start();
  ASSERT_TRUE(port.ok()) << port.error().message;
  std::vector<int> idle;
  for (int i = 0; i < 40; ++i) {
    const int fd = Connect(*port);
    ASSERT_GE(fd, 0);
    idle.push_back(fd);
  }
  const auto took = TimedHealthz(*port);
  EXPECT_TRUE(took.has_value());
  if (took) {
    EXPECT_LT(*took, seconds(1));
  }
  // The first ones were closed to make room (with a 408: their head never came).
  EXPECT_TRUE(ClosedByServer(idle.front(), seconds(1)));
  for (const int fd : idle) ::close(fd);
}

// A kept-alive connection goes back to waiting between requests, without a worker, and serves
// the next request on the same socket.
TEST(OpsHttpServerSlowClientsTest, AKeptAliveConnectionServesSeveralRequests) {
  OpsServerOptions options;
  options.listen = "127.0.0.1:0";
  options.threads = 1;
  options.probe_threads = 1;
  OpsHttpServer server(options, Routes());
  auto port = server.Start();
  ASSERT_TRUE(port.ok()) << port.error().message;
  const int fd = Connect(*port);
  ASSERT_GE(fd, 0);
  // Two requests in one write (pipelined), then a third after the answers.
  ASSERT_TRUE(SendAll(fd,
                      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                      "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::string answers;
  const auto read_until = [&](size_t count) {
    const auto until = Steady::now() + seconds(3);
    size_t seen = 0;
    while (Steady::now() < until) {
      seen = 0;
      for (size_t at = answers.find("HTTP/1.1 200"); at != std::string::npos;
           at = answers.find("HTTP/1.1 200", at + 1)) {
        ++seen;
      }
      if (seen >= count) return true;
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buffer[1024];
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      answers.append(buffer, static_cast<size_t>(n));
    }
    return false;
  };
  EXPECT_TRUE(read_until(2)) << answers;
  ASSERT_TRUE(SendAll(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  EXPECT_TRUE(read_until(3)) << answers;
  EXPECT_TRUE(ClosedByServer(fd, seconds(2)));
  ::close(fd);
}

// A body that trickles in past body_timeout is cut, and its worker freed.
TEST(OpsHttpServerSlowClientsTest, ABodySlowerThanItsTimeoutIsCut) {
  OpsServerOptions options;
  options.listen = "127.0.0.1:0";
  options.open_reads = true;
  options.body_timeout = milliseconds(500);
  std::vector<app::OpsRoute> routes = Routes();
  routes.push_back(app::OpsRoute{.method = "POST",
                                 .pattern = "/echo",
                                 .write = false,
                                 .handler = [](const app::OpsRequest& r) {
                                   return app::OpsResponse{
                                       .status = 200, .content_type = "text/plain", .body = r.body};
                                 }});
  OpsHttpServer server(options, routes);
  auto port = server.Start();
  ASSERT_TRUE(port.ok()) << port.error().message;
  const int fd = Connect(*port);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab"));
  EXPECT_TRUE(ClosedByServer(fd, seconds(3)));
  ::close(fd);
}

// A request refused before its body was read leaves that body on the connection, where it
// would be taken for the next request's head: the connection is closed after the answer.
TEST(OpsHttpServerSlowClientsTest, ARefusedRequestWithAnUnreadBodyEndsItsConnection) {
  OpsServerOptions options;
  options.listen = "127.0.0.1:0";
  OpsHttpServer server(options, Routes());
  auto port = server.Start();
  ASSERT_TRUE(port.ok()) << port.error().message;
  const int fd = Connect(*port);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"));
  std::string answer;
  const auto until = Steady::now() + seconds(2);
  bool closed = false;
  while (!closed && Steady::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buffer[1024];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      closed = true;
    } else {
      answer.append(buffer, static_cast<size_t>(n));
    }
  }
  EXPECT_EQ(answer.rfind("HTTP/1.1 405", 0), 0U) << answer;
  EXPECT_TRUE(closed) << answer;
  ::close(fd);
}

// /readyz asks the store, which can hang (a lost connection, a lock): however many readiness
// probes wait on it, /healthz has a worker of its own and answers.
TEST(OpsHttpServerSlowClientsTest, ReadinessProbesStuckOnTheStoreDoNotDelayLiveness) {
  std::mutex mutex;
  std::condition_variable released_cv;
  bool released = false;
  std::vector<app::OpsRoute> routes = Routes();
  for (app::OpsRoute& route : routes) {
    if (route.pattern != "/readyz") continue;
    route.handler = [&](const app::OpsRequest&) {
      std::unique_lock<std::mutex> lock(mutex);
      released_cv.wait(lock, [&] { return released; });
      return app::OpsResponse{.status = 200, .content_type = "application/json", .body = "{}"};
    };
  }
  OpsServerOptions options;
  options.listen = "127.0.0.1:0";
  OpsHttpServer server(options, routes);
  auto port = server.Start();
  ASSERT_TRUE(port.ok()) << port.error().message;
  std::vector<int> stuck;
  for (int i = 0; i < 4; ++i) {
    const int fd = Connect(*port);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(SendAll(fd, "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"));
    stuck.push_back(fd);
  }
  const auto took = TimedHealthz(*port);
  EXPECT_TRUE(took.has_value());
  if (took) {
    EXPECT_LT(*took, seconds(1));
  }
  {
    const std::lock_guard<std::mutex> lock(mutex);
    released = true;
  }
  released_cv.notify_all();
  for (const int fd : stuck) ::close(fd);
  server.Stop();
}

}  // namespace
}  // namespace quell::http_server
