// CurlMultiClient against a real cpp-httplib server on 127.0.0.1 port 0.
#include "quell/adapters/curl/curl_multi_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "loopback_receiver.h"

namespace quell::curl {
namespace {

using core::ErrorCode;
using std::chrono::milliseconds;

class MultiClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.new_task_queue = [] { return new httplib::ThreadPool(32); };
    server_.set_keep_alive_max_count(1000);
    server_.set_tcp_nodelay(true);
    server_.set_keep_alive_timeout(2);
    server_.Get("/echo", [this](const httplib::Request& req, httplib::Response& res) {
      {
        const std::lock_guard<std::mutex> lock(mu_);
        ports_.insert(req.remote_port);
      }
      res.set_content(req.get_param_value("i"), "text/plain");
    });
    // Holds each request a while so that concurrent ones overlap, counting them per lane.
    server_.Get("/lane", [this](const httplib::Request& req, httplib::Response& res) {
      const int lane = std::stoi(req.get_param_value("lane"));
      {
        const std::lock_guard<std::mutex> lock(mu_);
        const int now = ++current_[lane];
        peak_[lane] = std::max(peak_[lane], now);
      }
      std::this_thread::sleep_for(milliseconds(30));  // the server's latency, not a sync
      {
        const std::lock_guard<std::mutex> lock(mu_);
        --current_[lane];
      }
      res.set_content("ok", "text/plain");
    });
    server_.Get("/hang", [this](const httplib::Request&, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(mu_);
      release_.wait_for(lock, std::chrono::seconds(10), [this] { return released_; });
      res.set_content("late", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    testing::WidenListenBacklog(port_);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  void TearDown() override {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      released_ = true;
    }
    release_.notify_all();
    client_.reset();
    server_.stop();
    thread_.join();
  }

  core::HttpExchange Exchange(const std::string& path_and_query, uint32_t lane = 0) {
    core::HttpExchange exchange;
    exchange.request.url = "http://127.0.0.1:" + std::to_string(port_) + path_and_query;
    exchange.request.headers = {{"Authorization", "Bearer multi_secret"}};
    exchange.lane = lane;
    return exchange;
  }

  // Runs one batch; results by index, with the number of calls per index checked.
  std::vector<core::Result<core::HttpResponse>> Run(const std::vector<core::HttpExchange>& batch,
                                                    const std::vector<uint32_t>& limits) {
    std::vector<core::Result<core::HttpResponse>> results(
        batch.size(), core::MakeError(ErrorCode::kInternal, "never called"));
    std::vector<int> calls(batch.size(), 0);
    client_->SendAll(batch, limits, [&](size_t i, core::Result<core::HttpResponse> result) {
      ++calls.at(i);
      results.at(i) = std::move(result);
    });
    for (size_t i = 0; i < batch.size(); ++i) EXPECT_EQ(calls[i], 1) << "exchange " << i;
    return results;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<CurlMultiClient> client_ = std::make_unique<CurlMultiClient>();
  std::mutex mu_;
  std::condition_variable release_;
  bool released_ = false;       // guarded by mu_
  std::set<int> ports_;         // guarded by mu_
  std::map<int, int> current_;  // guarded by mu_
  std::map<int, int> peak_;     // guarded by mu_
};

TEST_F(MultiClientTest, CompletesManyRequestsEachExactlyOnce) {
  std::vector<core::HttpExchange> batch;
  batch.reserve(300);
  for (int i = 0; i < 300; ++i) {
    batch.push_back(Exchange("/echo?i=" + std::to_string(i), static_cast<uint32_t>(i % 3)));
  }
  const auto results = Run(batch, {8, 8, 8});
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].error().message;
    EXPECT_EQ(results[i]->status, 200);
    EXPECT_EQ(results[i]->body, std::to_string(i));
  }
}

TEST_F(MultiClientTest, KeepsEachLaneWithinItsLimit) {
  std::vector<core::HttpExchange> batch;
  for (int i = 0; i < 12; ++i) {
    batch.push_back(Exchange("/lane?lane=0", 0));
    batch.push_back(Exchange("/lane?lane=1", 1));
    batch.push_back(Exchange("/lane?lane=2", 2));  // no entry in the limits: 1
  }
  const auto results = Run(batch, {2, 5});
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.error().message;
  const std::lock_guard<std::mutex> lock(mu_);
  EXPECT_LE(peak_[0], 2);
  EXPECT_LE(peak_[1], 5);
  EXPECT_EQ(peak_[2], 1);
  // The lanes did run side by side: a lane with room used more than one connection.
  EXPECT_GE(peak_[1], 3);
}

TEST_F(MultiClientTest, ATimeoutFailsOnlyItsOwnRequest) {
  std::vector<core::HttpExchange> batch = {Exchange("/hang", 0)};
  batch[0].request.total_timeout = milliseconds(200);
  for (int i = 0; i < 20; ++i) batch.push_back(Exchange("/echo?i=" + std::to_string(i), 1));
  const auto start = std::chrono::steady_clock::now();
  const auto results = Run(batch, {1, 4});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_FALSE(results[0].ok());
  EXPECT_EQ(results[0].error().code, ErrorCode::kTimeout);
  EXPECT_NE(results[0].error().message.find("GET http://127.0.0.1"), std::string::npos);
  EXPECT_EQ(results[0].error().message.find("multi_secret"), std::string::npos);
  for (size_t i = 1; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].error().message;
    EXPECT_EQ(results[i]->body, std::to_string(i - 1));
  }
}

TEST_F(MultiClientTest, ReusesConnectionsWithinAndAcrossBatches) {
  for (int round = 0; round < 3; ++round) {
    std::vector<core::HttpExchange> batch;
    batch.reserve(5);
    for (int i = 0; i < 5; ++i) batch.push_back(Exchange("/echo?i=" + std::to_string(i)));
    for (const auto& r : Run(batch, {1})) ASSERT_TRUE(r.ok()) << r.error().message;
  }
  const std::lock_guard<std::mutex> lock(mu_);
  EXPECT_EQ(ports_.size(), 1u) << "15 sequential requests should share one connection";
}

TEST_F(MultiClientTest, ReportsBadRequestsAndRunsTheRest) {
  std::vector<core::HttpExchange> batch = {Exchange("/echo?i=0"), Exchange("/echo?i=1"),
                                           Exchange("/echo?i=2")};
  batch[0].request.headers.emplace_back("X-Bad", "multi_secret\r\nX-Injected: 1");
  batch[1].request.method = "GET /x";
  const auto results = Run(batch, {1});
  ASSERT_FALSE(results[0].ok());
  EXPECT_EQ(results[0].error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(results[0].error().message.find("multi_secret"), std::string::npos);
  ASSERT_FALSE(results[1].ok());
  EXPECT_EQ(results[1].error().code, ErrorCode::kInvalidArgument);
  ASSERT_TRUE(results[2].ok()) << results[2].error().message;
  EXPECT_EQ(results[2]->body, "2");
}

TEST_F(MultiClientTest, AClosedPortIsUnavailable) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  ASSERT_EQ(::bind(fd, sa, len), 0);
  ASSERT_EQ(::getsockname(fd, sa, &len), 0);
  core::HttpExchange exchange;
  exchange.request.url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/x";
  const auto results = Run({exchange, Exchange("/echo?i=7")}, {2});
  ::close(fd);
  ASSERT_FALSE(results[0].ok());
  EXPECT_EQ(results[0].error().code, ErrorCode::kUnavailable);
  ASSERT_TRUE(results[1].ok());
}

// A URL that is itself a credential (a Telegram bot token in the path, a Google Chat key in the
// query) is shown in errors as the channel's label_url says, never as sent.
TEST_F(MultiClientTest, AnErrorNamesTheLabelUrlInsteadOfACredentialUrl) {
  core::HttpExchange exchange;
  exchange.request.method = "POST";
  exchange.request.url = "http://127.0.0.1:1/bot123:SECRETTOKEN/sendMessage?key=SECRETKEY";
  exchange.request.label_url = "http://127.0.0.1:1/bot[redacted]/sendMessage";
  const auto results = Run({exchange}, {1});
  ASSERT_FALSE(results[0].ok());
  const std::string& message = results[0].error().message;
  EXPECT_EQ(message.rfind("POST http://127.0.0.1:1/bot[redacted]/sendMessage: ", 0), 0U) << message;
  EXPECT_EQ(message.find("SECRET"), std::string::npos) << message;
}

TEST_F(MultiClientTest, RejectsBodiesOverTheLimit) {
  CurlOptions options;
  options.max_body_bytes = 3;
  client_ = std::make_unique<CurlMultiClient>(options);
  const auto results = Run({Exchange("/echo?i=12345"), Exchange("/echo?i=1")}, {1});
  ASSERT_FALSE(results[0].ok());
  EXPECT_EQ(results[0].error().code, ErrorCode::kRejected);
  ASSERT_TRUE(results[1].ok());
  EXPECT_EQ(results[1]->body, "1");
}

TEST_F(MultiClientTest, AnEmptyBatchReturnsAtOnce) {
  bool called = false;
  client_->SendAll({}, {}, [&](size_t, const core::Result<core::HttpResponse>&) { called = true; });
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace quell::curl
