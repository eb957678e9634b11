#include "quell/adapters/http_server/http_front.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <exception>
#include <limits>
#include <list>
#include <thread>

#include "quell/adapters/http_server/listen_socket.h"
#include "quell/adapters/http_server/security_headers.h"
#include "quell/adapters/http_server/worker_lane.h"
#include "quell/core/text/json_escape.h"

namespace quell::http_server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Steady = std::chrono::steady_clock;
using boost::system::error_code;

namespace {

// How long a connection refused before its body was read keeps reading (and dropping) what
// the client still sends, so that closing it does not reset the answer away.
constexpr auto kLingerTimeout = std::chrono::seconds(2);
// After accept() failed (no file descriptor left, say), the next try.
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

// `answer` as bytes on a connection about to close: for the refusals sent without waiting.
std::string Serialize(HttpAnswer answer) {
  AddSecurityHeaders(answer);
  std::string text = "HTTP/1.1 " + std::to_string(answer.status) + " ";
  const beast::string_view reason = http::obsolete_reason(static_cast<http::status>(answer.status));
  text.append(reason.data(), reason.size());
  text.append("\r\nContent-Type: ").append(answer.content_type);
  for (const auto& [name, value] : answer.headers) {
    text.append("\r\n").append(name).append(": ").append(value);
  }
  text.append("\r\nConnection: close\r\nContent-Length: ")
      .append(std::to_string(answer.body.size()))
      .append("\r\n\r\n")
      .append(answer.body);
  return text;
}

// Whether `ec` is the parser's own refusal of what the client sent (not the client leaving).
bool IsParseError(const error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

std::string Lower(beast::string_view text) {
  std::string out(text.data(), text.size());
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

HttpAnswer ErrorAnswer(int status, std::string_view code, std::string_view message) {
  std::string body = R"({"error":{"code":")";
  body.append(code).append(R"(","message":)");
  core::AppendJsonString(body, message);
  body.append("}}");
  return HttpAnswer{.status = status, .content_type = "application/json", .body = std::move(body)};
}

class Connection;

class HttpFront::Impl {
 public:
  Impl(FrontOptions options, Admit admit)
      : options_(std::move(options)), admit_(std::move(admit)) {}
  ~Impl() { Stop(); }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  core::Result<int> Listen(const std::string& host, int port, const std::string& listen_text);
  void Start();
  void Stop();

  // The rest is for connections, on the I/O thread.
  const FrontOptions& options() const { return options_; }
  asio::io_context& io() { return io_; }
  bool stopping() const { return stopping_; }
  Admission Decide(RequestHead head);
  void Register(Connection& connection);
  void Unregister(Connection& connection);
  // Counts `connection`'s request as unauthenticated and in flight, dropping the oldest such
  // request that can be when the cap is reached; false when none can (the newcomer is refused).
  bool ReserveUnauthenticated(Connection& connection);
  void ReleaseUnauthenticated(Connection& connection);
  void Queue(size_t lane, WorkerLane::Job job);

 private:
  void Accept();
  void OnAccept(const error_code& ec, tcp::socket socket);
  // Closes a connection to make room for a newcomer; false when none may be.
  bool MakeRoom();

  const FrontOptions options_;
  const Admit admit_;
  // Declared first: the sockets and timers below, and the connections its handlers still own,
  // go before it does.
  asio::io_context io_{1};
  // Keeps the I/O thread running until Stop, whatever is pending.
  asio::executor_work_guard<asio::io_context::executor_type> work_{io_.get_executor()};
  tcp::acceptor acceptor_{io_};
  asio::steady_timer accept_retry_{io_};
  std::vector<std::unique_ptr<WorkerLane>> lanes_;
  std::list<Connection*> connections_;      // every open one, the I/O thread's
  std::list<Connection*> unauthenticated_;  // those counted, oldest first
  std::atomic<bool> stopping_{false};
  bool started_ = false;
  bool stopped_ = false;
  std::thread thread_;
};

// One client connection, on the I/O thread only (its handler runs on a worker with copies).
// Kept alive by the handlers of its pending operations; every path ends in Close().
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  enum class Stage : uint8_t { kHead, kIdle, kBody, kQueued, kWriting, kLinger, kClosed };

  Connection(HttpFront::Impl& front, tcp::socket socket)
      : front_(front), socket_(std::move(socket)), timer_(front.io()), since_(Steady::now()) {}

  void Start() {
    front_.Register(*this);
    ReadHead(since_ + front_.options().header_timeout);
  }

  // Waiting for a head (or lingering): the first to go when connections run out.
  bool Waiting() const {
    return stage_ == Stage::kHead || stage_ == Stage::kIdle || stage_ == Stage::kLinger;
  }
  // An unauthenticated request that no worker has taken yet.
  bool EvictableUnauthenticated() const {
    return counted_ && (stage_ == Stage::kBody || (stage_ == Stage::kQueued && !claim_->load()));
  }
  Steady::time_point since() const { return since_; }

  // Drops the connection to make room: what it is told is sent without waiting.
  void Evict() {
    switch (stage_) {
      case Stage::kHead:
        return Refuse(ErrorAnswer(408, "request_timeout",
                                  "the request head did not arrive before the server needed "
                                  "its connection"));
      case Stage::kBody:
        return Refuse(Busy());
      case Stage::kQueued:
        if (!claim_->exchange(true)) return Refuse(Busy());
        return;  // a worker has it: its answer closes
      default:
        return Close();
    }
  }

  void Close() {
    if (stage_ == Stage::kClosed) return;
    stage_ = Stage::kClosed;
    Disarm();
    front_.ReleaseUnauthenticated(*this);
    front_.Unregister(*this);
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  // The handler's answer, back on the I/O thread.
  void Answered(HttpAnswer answer) {
    if (stage_ != Stage::kQueued) return;
    Write(std::move(answer), !keep_alive_ || front_.stopping(), /*linger=*/false);
  }

  std::list<Connection*>::iterator entry;       // in the front's connections
  std::list<Connection*>::iterator counted_at;  // in the front's unauthenticated, if counted_
  bool counted_ = false;

 private:
  static HttpAnswer Busy() {
    return ErrorAnswer(503, "unavailable",
                       "too many unauthenticated requests in flight; the oldest was dropped");
  }

  void Arm(Steady::time_point deadline) {
    const uint64_t generation = ++timer_generation_;
    timer_.expires_at(deadline);
    timer_.async_wait([self = shared_from_this(), generation](const error_code& ec) {
      if (ec || generation != self->timer_generation_ || self->stage_ == Stage::kClosed) return;
      self->OnDeadline();
    });
  }

  void Disarm() {
    ++timer_generation_;
    timer_.cancel();
  }

  void OnDeadline() {
    switch (stage_) {
      case Stage::kHead:
        return Refuse(ErrorAnswer(408, "request_timeout",
                                  "the request head did not arrive within " +
                                      std::to_string(front_.options().header_timeout.count()) +
                                      " ms"));
      case Stage::kBody:
        return Refuse(ErrorAnswer(408, "request_timeout",
                                  "the body did not arrive in time (at least " +
                                      std::to_string(front_.options().min_body_rate) +
                                      " bytes per second)"));
      default:
        return Close();
    }
  }

  // Sends `answer` as far as the socket takes it at once, and closes.
  void Refuse(const HttpAnswer& answer) {
    const std::string text = Serialize(answer);
    (void)::send(socket_.native_handle(), text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    Close();
  }

  void ReadHead(Steady::time_point deadline) {
    stage_ = Stage::kHead;
    head_.emplace();
    head_->header_limit(static_cast<uint32_t>(front_.options().max_head_bytes));
    // Each route's own limit is applied once the head is routed. (Not boost::none: Beast 1.74
    // compares the declared length with the optional, and anything is larger than none.)
    head_->body_limit(std::numeric_limits<uint64_t>::max());
    Arm(deadline);
    http::async_read_header(
        socket_, buffer_, *head_,
        [self = shared_from_this()](const error_code& ec, size_t) { self->OnHead(ec); });
  }

  void OnHead(const error_code& ec) {
    if (stage_ != Stage::kHead) return;
    if (ec) {
      if (ec == http::error::header_limit) {
        return Write(
            ErrorAnswer(431, "bad_request",
                        "the request head is larger than " +
                            std::to_string(front_.options().max_head_bytes / 1024) + " KiB"),
            /*close=*/true, /*linger=*/true);
      }
      if (IsParseError(ec)) {
        return Write(ErrorAnswer(400, "bad_request",
                                 "the request could not be read (malformed request line, "
                                 "headers or body framing)"),
                     /*close=*/true, /*linger=*/true);
      }
      return Close();  // the client left, or the connection broke
    }
    Disarm();
    const auto& message = head_->get();
    version_ = message.version();
    keep_alive_ = head_->keep_alive();
    RequestHead head;
    head.method.assign(message.method_string().data(), message.method_string().size());
    head.target.assign(message.target().data(), message.target().size());
    for (const auto& field : message) {
      head.headers.emplace_back(Lower(field.name_string()),
                                std::string(field.value().data(), field.value().size()));
    }
    if (const auto length = head_->content_length()) head.content_length = *length;
    head.has_body = head_->chunked() || head.content_length.value_or(0) > 0;
    const bool has_body = head.has_body;
    const std::optional<uint64_t> declared = head.content_length;
    const bool expects_continue = beast::iequals(message[http::field::expect], "100-continue");

    Admission admission = front_.Decide(std::move(head));
    if (admission.refusal) {
      return Write(std::move(*admission.refusal), /*close=*/!keep_alive_ || has_body,
                   /*linger=*/has_body);
    }
    if (declared && *declared > admission.max_body) {
      return Write(ErrorAnswer(413, "payload_too_large",
                               "the body of " + std::to_string(*declared) +
                                   " bytes is larger than this route's limit of " +
                                   std::to_string(admission.max_body) + " bytes"),
                   /*close=*/true, /*linger=*/true);
    }
    if (admission.unauthenticated && !front_.ReserveUnauthenticated(*this)) {
      return Write(Busy(), /*close=*/true, /*linger=*/has_body);
    }
    lane_ = admission.lane;
    max_body_ = admission.max_body;
    handle_ = std::move(admission.handle);
    if (!has_body) {
      head_.reset();
      return Dispatch({});
    }
    stage_ = Stage::kBody;
    body_.emplace(std::move(*head_));
    head_.reset();
    body_->body_limit(max_body_);
    const uint64_t size = declared.value_or(max_body_);
    const auto at_min_rate = std::chrono::milliseconds(
        size * 1000 / std::max<uint64_t>(front_.options().min_body_rate, 1));
    Arm(Steady::now() +
        std::max(std::chrono::milliseconds(front_.options().body_timeout), at_min_rate));
    if (!expects_continue) return ReadBody();
    asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](const error_code& write_ec, size_t) {
                        if (self->stage_ != Stage::kBody) return;
                        if (write_ec) return self->Close();
                        self->ReadBody();
                      });
  }

  void ReadBody() {
    http::async_read(
        socket_, buffer_, *body_,
        [self = shared_from_this()](const error_code& ec, size_t) { self->OnBody(ec); });
  }

  void OnBody(const error_code& ec) {
    if (stage_ != Stage::kBody) return;
    if (ec == http::error::body_limit) {
      return Write(ErrorAnswer(413, "payload_too_large",
                               "the body is larger than this route's limit of " +
                                   std::to_string(max_body_) + " bytes"),
                   /*close=*/true, /*linger=*/true);
    }
    if (ec && IsParseError(ec)) {
      return Write(ErrorAnswer(400, "bad_request",
                               "the request could not be read (malformed request line, "
                               "headers or body framing)"),
                   /*close=*/true, /*linger=*/true);
    }
    if (ec) return Close();
    Disarm();
    std::string body = std::move(body_->get().body());
    body_.reset();
    Dispatch(std::move(body));
  }

  // Hands the request to a worker of its lane; the answer comes back through Answered.
  void Dispatch(std::string body) {
    stage_ = Stage::kQueued;
    claim_ = std::make_shared<std::atomic<bool>>(false);
    front_.Queue(lane_, [self = shared_from_this(), claim = claim_, handle = std::move(handle_),
                         body = std::move(body)](bool run) mutable {
      asio::io_context& io = self->front_.io();
      // The connection goes back to the I/O thread in every case, so it is never destroyed
      // on a worker.
      if (!run || claim->exchange(true)) {
        asio::post(io, [self = std::move(self)] { self->Close(); });
        return;
      }
      HttpAnswer answer;
      try {
        answer = handle(std::move(body));
      } catch (const std::exception&) {
        answer = ErrorAnswer(500, "internal", "the handler failed");
      }
      asio::post(io, [self = std::move(self), answer = std::move(answer)]() mutable {
        self->Answered(std::move(answer));
      });
    });
  }

  void Write(HttpAnswer answer, bool close, bool linger) {
    AddSecurityHeaders(answer);
    close_after_ = close;
    linger_after_ = linger;
    stage_ = Stage::kWriting;
    response_ = std::make_unique<http::response<http::string_body>>();
    auto& response = *response_;
    try {
      response.result(static_cast<unsigned>(answer.status));
      response.version(version_);
      response.set(http::field::content_type, answer.content_type);
      for (const auto& [name, value] : answer.headers) response.insert(name, value);
      response.keep_alive(!close);
      response.body() = std::move(answer.body);
      // 204 and 304 have no body and say nothing of one.
      if (answer.status != 204 && answer.status != 304) response.prepare_payload();
    } catch (const std::exception&) {
      response = http::response<http::string_body>();
      response.result(http::status::internal_server_error);
      response.version(version_);
      HttpAnswer failed = ErrorAnswer(500, "internal", "the answer could not be written");
      response.set(http::field::content_type, failed.content_type);
      response.body() = std::move(failed.body);
      response.keep_alive(false);
      response.prepare_payload();
      close_after_ = true;
    }
    Arm(Steady::now() + front_.options().write_timeout);
    http::async_write(socket_, response, [self = shared_from_this()](const error_code& ec, size_t) {
      self->OnWritten(ec);
    });
  }

  void OnWritten(const error_code& ec) {
    if (stage_ != Stage::kWriting) return;
    Disarm();
    response_.reset();
    front_.ReleaseUnauthenticated(*this);
    if (ec || (close_after_ && !linger_after_) || (!close_after_ && front_.stopping())) {
      return Close();
    }
    if (close_after_) return Linger();
    WaitIdle();
  }

  // Reads and drops what the client still sends for a while after the last answer, so that
  // the close reaches it as an end, not a reset that could discard the answer unread.
  void Linger() {
    stage_ = Stage::kLinger;
    since_ = Steady::now();
    buffer_.clear();
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    Arm(since_ + kLingerTimeout);
    Drain();
  }

  void Drain() {
    socket_.async_read_some(asio::buffer(drain_),
                            [self = shared_from_this()](const error_code& ec, size_t) {
                              if (self->stage_ != Stage::kLinger) return;
                              if (ec) return self->Close();
                              self->Drain();
                            });
  }

  // Between requests on a kept-alive connection: nothing held but the socket.
  void WaitIdle() {
    stage_ = Stage::kIdle;
    since_ = Steady::now();
    if (buffer_.size() > 0) return ReadHead(since_ + front_.options().header_timeout);
    Arm(since_ + front_.options().idle_timeout);
    socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](const error_code& ec) {
      if (self->stage_ != Stage::kIdle) return;
      if (ec) return self->Close();
      self->ReadHead(Steady::now() + self->front_.options().header_timeout);
    });
  }

  HttpFront::Impl& front_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  uint64_t timer_generation_ = 0;
  Stage stage_ = Stage::kHead;
  Steady::time_point since_;  // of the connection, or of its last wait
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> head_;
  std::optional<http::request_parser<http::string_body>> body_;
  unsigned version_ = 11;
  bool keep_alive_ = true;
  size_t lane_ = 0;
  uint64_t max_body_ = 0;
  std::function<HttpAnswer(std::string)> handle_;
  // Taken by the worker that runs the handler, or by an eviction first.
  std::shared_ptr<std::atomic<bool>> claim_;
  std::unique_ptr<http::response<http::string_body>> response_;
  bool close_after_ = false;
  bool linger_after_ = false;
  std::array<char, 4096> drain_{};
};

core::Result<int> HttpFront::Impl::Listen(const std::string& host, int port,
                                          const std::string& listen_text) {
  auto bound = OpenListenSocket(host, port, listen_text);
  if (!bound) return bound.error();
  error_code ec;
  acceptor_.assign(bound->family == AF_INET6 ? tcp::v6() : tcp::v4(), bound->fd, ec);
  if (ec) {
    ::close(bound->fd);
    return core::MakeError(core::ErrorCode::kUnavailable,
                           "cannot listen on " + listen_text + ": " + ec.message());
  }
  return bound->port;
}

void HttpFront::Impl::Start() {
  for (const size_t threads : options_.lanes)
    lanes_.push_back(std::make_unique<WorkerLane>(threads));
  if (lanes_.empty()) lanes_.push_back(std::make_unique<WorkerLane>(1));
  started_ = true;
  Accept();
  thread_ = std::thread([this] {
    for (;;) {
      try {
        io_.run();
        return;
      } catch (const std::exception&) {
        // A handler threw past its own guards: the other connections are still served.
      }
    }
  });
}

void HttpFront::Impl::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  stopping_ = true;
  asio::post(io_, [this] {
    error_code ignored;
    acceptor_.close(ignored);
    accept_retry_.cancel();
  });
  // The handlers running finish and post their answers, which go out before the closing below.
  for (const auto& lane : lanes_) lane->Stop();
  asio::post(io_, [this] {
    const std::vector<Connection*> open(connections_.begin(), connections_.end());
    for (Connection* connection : open) connection->Close();
    work_.reset();
    io_.stop();
  });
  if (thread_.joinable()) thread_.join();
}

Admission HttpFront::Impl::Decide(RequestHead head) {
  try {
    return admit_(std::move(head));
  } catch (const std::exception&) {
    return Admission{.refusal = ErrorAnswer(500, "internal", "the request could not be routed")};
  }
}

void HttpFront::Impl::Register(Connection& connection) {
  connection.entry = connections_.insert(connections_.end(), &connection);
}

void HttpFront::Impl::Unregister(Connection& connection) { connections_.erase(connection.entry); }

bool HttpFront::Impl::ReserveUnauthenticated(Connection& connection) {
  if (unauthenticated_.size() >= std::max<size_t>(options_.max_unauthenticated, 1)) {
    const auto oldest =
        std::find_if(unauthenticated_.begin(), unauthenticated_.end(),
                     [](const Connection* c) { return c->EvictableUnauthenticated(); });
    if (oldest == unauthenticated_.end()) return false;
    (*oldest)->Evict();
  }
  connection.counted_at = unauthenticated_.insert(unauthenticated_.end(), &connection);
  connection.counted_ = true;
  return true;
}

void HttpFront::Impl::ReleaseUnauthenticated(Connection& connection) {
  if (!connection.counted_) return;
  connection.counted_ = false;
  unauthenticated_.erase(connection.counted_at);
}

void HttpFront::Impl::Queue(size_t lane, WorkerLane::Job job) {
  lanes_[std::min(lane, lanes_.size() - 1)]->Push(std::move(job));
}

void HttpFront::Impl::Accept() {
  acceptor_.async_accept(
      [this](const error_code& ec, tcp::socket socket) { OnAccept(ec, std::move(socket)); });
}

void HttpFront::Impl::OnAccept(const error_code& ec, tcp::socket socket) {
  if (stopping_ || !acceptor_.is_open()) return;
  if (ec) {
    // Out of file descriptors, say: try again shortly rather than spin.
    accept_retry_.expires_after(kAcceptRetry);
    accept_retry_.async_wait([this](const error_code& wait_ec) {
      if (!wait_ec) Accept();
    });
    return;
  }
  error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  if (connections_.size() >= std::max<size_t>(options_.max_connections, 1) && !MakeRoom()) {
    socket.close(ignored);  // every connection is at a worker or authenticated: no queue
  } else {
    std::make_shared<Connection>(*this, std::move(socket))->Start();
  }
  Accept();
}

bool HttpFront::Impl::MakeRoom() {
  Connection* oldest = nullptr;
  for (Connection* c : connections_) {
    if (c->Waiting() && (oldest == nullptr || c->since() < oldest->since())) oldest = c;
  }
  if (oldest == nullptr) {
    const auto first =
        std::find_if(unauthenticated_.begin(), unauthenticated_.end(),
                     [](const Connection* c) { return c->EvictableUnauthenticated(); });
    if (first != unauthenticated_.end()) oldest = *first;
  }
  if (oldest == nullptr) return false;
  oldest->Evict();
  return true;
}

HttpFront::HttpFront(FrontOptions options, Admit admit)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(admit))) {}

HttpFront::~HttpFront() { Stop(); }

core::Result<int> HttpFront::Listen(const std::string& host, int port,
                                    const std::string& listen_text) {
  return impl_->Listen(host, port, listen_text);
}

void HttpFront::Start() { impl_->Start(); }

void HttpFront::Stop() { impl_->Stop(); }

}  // namespace quell::http_server
