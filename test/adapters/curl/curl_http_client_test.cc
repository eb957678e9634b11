// CurlHttpClient against real cpp-httplib servers on 127.0.0.1 port 0, HTTP and HTTPS.
#include "quell/adapters/curl/curl_http_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "run_process.h"

namespace quell::curl {
namespace {

using core::ErrorCode;
using core::FindHeader;
using std::chrono::milliseconds;

constexpr const char* kSecret = "ifr_secret";
constexpr const char* kOpenssl = "/usr/bin/openssl";

// A server running on its own thread until destroyed.
class RunningServer {
 public:
  explicit RunningServer(std::unique_ptr<httplib::Server> server) : server_(std::move(server)) {
    // More workers than the tests' 8 concurrent keep-alive connections, so none waits.
    server_->new_task_queue = [] { return new httplib::ThreadPool(16); };
    server_->set_keep_alive_max_count(1000);
    // httplib leaves Nagle on: with delayed ACKs every small response would take 40 ms.
    server_->set_tcp_nodelay(true);
    // A test that forgets to close its client then waits 1 s at teardown, not 5.
    server_->set_keep_alive_timeout(1);
    port_ = server_->bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("bind failed");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    // stop() before the accept loop runs would be lost, and the thread would never end.
    while (!server_->is_running()) std::this_thread::yield();
  }
  ~RunningServer() {
    server_->stop();
    thread_.join();
  }
  RunningServer(const RunningServer&) = delete;
  RunningServer& operator=(const RunningServer&) = delete;

  std::string Url(const std::string& path, const char* scheme = "http") const {
    return std::string(scheme) + "://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::thread thread_;
};

void AddRoutes(httplib::Server& server) {
  server.Get("/echo", [](const httplib::Request& req, httplib::Response& res) {
    res.set_header("X-Echo", req.get_header_value("X-Test"));
    res.set_header("X-Remote-Port", std::to_string(req.remote_port));
    res.set_content("GET " + req.path, "text/plain");
  });
  const auto echo_body = [](const httplib::Request& req, httplib::Response& res) {
    res.set_header("X-Content-Type",
                   req.has_header("Content-Type") ? req.get_header_value("Content-Type") : "none");
    res.set_header("X-Had-Expect", req.has_header("Expect") ? "yes" : "no");
    res.status = 201;
    res.set_content(req.method + " " + req.body, "text/plain");
  };
  server.Post("/echo", echo_body);
  server.Put("/echo", echo_body);
  server.Delete("/echo", echo_body);
  server.Get("/redirect",
             [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/echo"); });
  server.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content("no such thing", "text/plain");
  });
  server.Get("/big", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(1000, 'x'), "text/plain");
  });
  server.Get("/big-chunked", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("text/plain", [](size_t offset, httplib::DataSink& sink) {
      if (offset >= 1000) {
        sink.done();
      } else {
        sink.write(std::string(100, 'y').data(), 100);
      }
      return true;
    });
  });
}

std::string MakeTempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "quell-curl-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

// A port on which nothing listens: bound (so no one else takes it) but never listening, so a
// connection attempt is refused.
class ClosedPort {
 public:
  ClosedPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    auto* sa = reinterpret_cast<sockaddr*>(&addr);
    if (fd_ < 0 || ::bind(fd_, sa, len) != 0 || ::getsockname(fd_, sa, &len) != 0) {
      throw std::runtime_error("cannot bind a loopback socket");
    }
    port_ = ntohs(addr.sin_port);
  }
  ~ClosedPort() { ::close(fd_); }
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

class CurlHttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    auto server = std::make_unique<httplib::Server>();
    AddRoutes(*server);
    server->Get("/slow", [this](const httplib::Request&, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(release_mutex_);
      release_.wait_for(lock, std::chrono::seconds(2), [this] { return released_; });
      res.set_content("late", "text/plain");
    });
    server_ = std::make_unique<RunningServer>(std::move(server));
  }
  void TearDown() override {
    {
      const std::lock_guard<std::mutex> lock(release_mutex_);
      released_ = true;
    }
    release_.notify_all();
    // The client first: closing its idle keep-alive connections frees the server's workers.
    client_.reset();
    tls_.reset();
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  core::HttpRequest Get(const std::string& path) {
    core::HttpRequest request;
    request.url = server_->Url(path);
    request.headers = {{"Authorization", std::string("Bearer ") + kSecret}};
    return request;
  }

  // Writes a self-signed certificate for `san` ("IP:127.0.0.1") and its key into the temp dir.
  void MakeCertificate(const std::string& name, const std::string& san) {
    ASSERT_TRUE(std::filesystem::exists(kOpenssl)) << "the tests need the openssl CLI";
    const auto result = testing::RunProcess(
        {kOpenssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "2", "-subj", "/CN=quell test", "-addext", "subjectAltName=" + san,
         "-keyout", dir_ + "/" + name + ".key", "-out", dir_ + "/" + name + ".pem"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  // Starts tls_, an HTTPS server on the certificate `name`.
  void StartTls(const std::string& name) {
    auto server = std::make_unique<httplib::SSLServer>((dir_ + "/" + name + ".pem").c_str(),
                                                       (dir_ + "/" + name + ".key").c_str());
    EXPECT_TRUE(server->is_valid());
    AddRoutes(*server);
    tls_ = std::make_unique<RunningServer>(std::move(server));
  }

  std::string dir_;
  std::unique_ptr<RunningServer> server_;
  std::unique_ptr<RunningServer> tls_;
  std::unique_ptr<CurlHttpClient> client_ = std::make_unique<CurlHttpClient>();
  std::mutex release_mutex_;
  std::condition_variable release_;
  bool released_ = false;  // guarded by release_mutex_
};

TEST_F(CurlHttpClientTest, GetsWithHeadersAndReadsResponseHeadersCaseInsensitively) {
  auto request = Get("/echo");
  request.headers.emplace_back("X-Test", "hello");
  auto r = client_->Send(request);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "GET /echo");
  EXPECT_EQ(FindHeader(r->headers, "x-echo"), "hello");
  EXPECT_EQ(FindHeader(r->headers, "X-ECHO"), "hello");
  EXPECT_EQ(FindHeader(r->headers, "content-type"), "text/plain");
}

TEST_F(CurlHttpClientTest, PostsPutsAndDeletesBodies) {
  auto post = Get("/echo");
  post.method = "POST";
  post.body = R"({"a":1})";
  post.headers.emplace_back("Content-Type", "application/json");
  auto r = client_->Send(post);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 201);
  EXPECT_EQ(r->body, R"(POST {"a":1})");
  EXPECT_EQ(FindHeader(r->headers, "X-Content-Type"), "application/json");

  auto put = Get("/echo");
  put.method = "PUT";
  put.body = std::string(2 << 20, 'p');  // past the size where libcurl would send Expect
  r = client_->Send(put);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body.size(), 4 + put.body.size());
  EXPECT_EQ(FindHeader(r->headers, "X-Content-Type"), "none");  // not form-encoded
  EXPECT_EQ(FindHeader(r->headers, "X-Had-Expect"), "no");

  auto del = Get("/echo");
  del.method = "DELETE";
  r = client_->Send(del);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, "DELETE ");
}

TEST_F(CurlHttpClientTest, ReturnsErrorStatusesAndRedirectsAsResponses) {
  auto missing = client_->Send(Get("/missing"));
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->body, "no such thing");
  auto redirect = client_->Send(Get("/redirect"));
  ASSERT_TRUE(redirect.ok());
  EXPECT_EQ(redirect->status, 302);
  EXPECT_EQ(FindHeader(redirect->headers, "location"), "/echo");
}

TEST_F(CurlHttpClientTest, TimesOutWithinTheTotalTimeout) {
  auto request = Get("/slow");
  request.total_timeout = milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  auto r = client_->Send(request);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout) << r.error().message;
  EXPECT_EQ(r.error().message.rfind("GET " + request.url + ": ", 0), 0u) << r.error().message;
  EXPECT_LT(elapsed, milliseconds(1500));
}

TEST_F(CurlHttpClientTest, AClosedPortIsUnavailable) {
  ClosedPort closed;
  core::HttpRequest request;
  request.url = "http://127.0.0.1:" + std::to_string(closed.port()) + "/v1/errors/groups";
  auto r = client_->Send(request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(r.error().message.rfind("GET " + request.url + ": ", 0), 0u) << r.error().message;
}

TEST_F(CurlHttpClientTest, RejectsBodiesOverTheLimitWithOrWithoutContentLength) {
  CurlOptions options;
  options.max_body_bytes = 100;
  client_ = std::make_unique<CurlHttpClient>(options);
  for (const char* path : {"/big", "/big-chunked"}) {
    auto r = client_->Send(Get(path));
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.error().code, ErrorCode::kRejected);
    EXPECT_NE(r.error().message.find("limit of 100 bytes"), std::string::npos) << r.error().message;
  }
  options.max_body_bytes = 1000;
  client_ = std::make_unique<CurlHttpClient>(options);
  auto exact = client_->Send(Get("/big-chunked"));
  ASSERT_TRUE(exact.ok()) << exact.error().message;
  EXPECT_EQ(exact->body.size(), 1000u);
}

TEST_F(CurlHttpClientTest, ReusesTheConnectionAcrossCalls) {
  std::set<std::string> ports;
  for (int i = 0; i < 5; ++i) {
    auto r = client_->Send(Get("/echo"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    ports.emplace(FindHeader(r->headers, "X-Remote-Port"));
  }
  EXPECT_EQ(ports.size(), 1u);
}

TEST_F(CurlHttpClientTest, SendsFromManyThreadsAtOnce) {
  constexpr int kThreads = 8;
  constexpr int kRequestsEach = 25;
  std::mutex mutex;
  std::set<std::string> ports;
  int ok = 0;
  std::vector<std::thread> threads;
  // httplib listens with a backlog of 5: some of the 8 first connects may wait a second for
  // a SYN retransmit on a busy machine. Slow, not wrong.
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRequestsEach; ++i) {
        auto request = Get("/echo");
        request.headers.emplace_back("X-Test", std::to_string(t) + "-" + std::to_string(i));
        auto r = client_->Send(request);
        const std::lock_guard<std::mutex> lock(mutex);
        if (r.ok() && FindHeader(r->headers, "X-Echo") == request.headers.back().second) ++ok;
        if (r.ok()) ports.emplace(FindHeader(r->headers, "X-Remote-Port"));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ok, kThreads * kRequestsEach);
  // One connection per pooled handle, at most one handle per concurrent request.
  EXPECT_LE(ports.size(), static_cast<size_t>(kThreads));
}

TEST_F(CurlHttpClientTest, RefusesMalformedRequestsBeforeSending) {
  auto ftp = Get("/echo");
  ftp.url = "ftp://127.0.0.1/file";
  auto r = client_->Send(ftp);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << r.error().message;

  auto malformed = Get("/echo");
  malformed.url = "http://[::1/";
  r = client_->Send(malformed);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << r.error().message;

  auto bad_method = Get("/echo");
  bad_method.method = "GET /x HTTP/1.1\r\nX:";
  r = client_->Send(bad_method);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(CurlHttpClientTest, CutsUserinfoFromUrlsInMessages) {
  ClosedPort closed;
  core::HttpRequest request;
  request.url =
      "http://user:" + std::string(kSecret) + "@127.0.0.1:" + std::to_string(closed.port()) + "/x";
  auto r = client_->Send(request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.find(kSecret), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("http://127.0.0.1:"), std::string::npos) << r.error().message;
}

TEST_F(CurlHttpClientTest, VerifiesTlsPeersAndTrustsOnlyTheGivenCa) {
  MakeCertificate("good", "IP:127.0.0.1");
  StartTls("good");

  core::HttpRequest request;
  request.url = tls_->Url("/echo", "https");
  auto untrusted = client_->Send(request);
  ASSERT_FALSE(untrusted.ok());
  EXPECT_EQ(untrusted.error().code, ErrorCode::kRejected) << untrusted.error().message;

  CurlOptions options;
  options.ca_file = dir_ + "/good.pem";
  client_ = std::make_unique<CurlHttpClient>(options);
  auto trusted = client_->Send(request);
  ASSERT_TRUE(trusted.ok()) << trusted.error().message;
  EXPECT_EQ(trusted->status, 200);
  EXPECT_EQ(trusted->body, "GET /echo");
}

TEST_F(CurlHttpClientTest, VerifiesTheHostNameEvenWithATrustedCa) {
  MakeCertificate("elsewhere", "DNS:elsewhere.test");
  StartTls("elsewhere");
  CurlOptions options;
  options.ca_file = dir_ + "/elsewhere.pem";
  client_ = std::make_unique<CurlHttpClient>(options);
  core::HttpRequest request;
  request.url = tls_->Url("/echo", "https");
  auto r = client_->Send(request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kRejected) << r.error().message;
}

TEST_F(CurlHttpClientTest, NoErrorMessageCarriesAHeaderValue) {
  MakeCertificate("good", "IP:127.0.0.1");
  StartTls("good");
  ClosedPort closed;
  CurlOptions options;
  options.max_body_bytes = 10;
  client_ = std::make_unique<CurlHttpClient>(options);

  std::vector<core::HttpRequest> failing;
  failing.push_back(Get("/slow"));
  failing.back().total_timeout = milliseconds(100);
  failing.push_back(Get("/big"));
  failing.push_back(Get("/echo"));
  failing.back().url = "http://127.0.0.1:" + std::to_string(closed.port()) + "/echo";
  failing.push_back(Get("/echo"));
  failing.back().url = tls_->Url("/echo", "https");
  failing.push_back(Get("/echo"));
  failing.back().url = "gopher://127.0.0.1/";
  failing.push_back(Get("/echo"));
  failing.back().headers.emplace_back("X-Injected", std::string(kSecret) + "\r\nX-More: 1");
  failing.push_back(Get("/echo"));
  failing.back().headers.emplace_back(std::string(kSecret) + ":", "v");

  for (const auto& request : failing) {
    auto r = client_->Send(request);
    ASSERT_FALSE(r.ok()) << request.url;
    EXPECT_FALSE(r.error().message.empty());
    EXPECT_EQ(r.error().message.find(kSecret), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace quell::curl
