#include "loopback_receiver.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <stdexcept>

namespace quell::testing {
namespace {

// A hung request gives up by itself after this long, so a forgotten ReleaseHung cannot wedge
// a test binary; far beyond any client timeout a test sets.
constexpr auto kMaxHang = std::chrono::seconds(30);

int LocalPort(int fd, bool peer) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  const int rc = peer ? ::getpeername(fd, sa, &len) : ::getsockname(fd, sa, &len);
  if (rc != 0 || addr.sin_family != AF_INET) return -1;
  return ntohs(addr.sin_port);
}

}  // namespace

void WidenListenBacklog(int port) {
  for (int fd = 3; fd < 4096; ++fd) {
    int listening = 0;
    socklen_t len = sizeof listening;
    if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening == 0) {
      continue;
    }
    if (LocalPort(fd, false) == port) ::listen(fd, 1024);
  }
}

LoopbackReceiver::LoopbackReceiver() {
  // A reset connection makes httplib's write fail; it must not kill the test with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  server_.new_task_queue = [] { return new httplib::ThreadPool(16); };
  server_.set_keep_alive_max_count(1000);
  server_.set_tcp_nodelay(true);
  server_.set_keep_alive_timeout(1);
}

LoopbackReceiver::~LoopbackReceiver() {
  ReleaseHung();
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

void LoopbackReceiver::Start() {
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("loopback receiver: bind failed");
  WidenListenBacklog(port_);
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  // stop() before the accept loop runs would be lost, and the thread would never end.
  while (!server_.is_running()) std::this_thread::yield();
}

std::string LoopbackReceiver::BaseUrl() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

void LoopbackReceiver::FailNext(Fault fault, size_t count) {
  const std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < count; ++i) faults_.push_back(fault);
}

void LoopbackReceiver::SetRetryAfter(std::string value) {
  const std::lock_guard<std::mutex> lock(mu_);
  retry_after_ = std::move(value);
}

void LoopbackReceiver::ReleaseHung() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
  }
  release_.notify_all();
}

std::vector<ReceivedRequest> LoopbackReceiver::Requests() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

std::set<std::string> LoopbackReceiver::DeliveredKeys() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return delivered_;
}

size_t LoopbackReceiver::AcceptedCount() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return accepted_;
}

LoopbackReceiver::Admission LoopbackReceiver::Admit(const httplib::Request& req,
                                                    httplib::Response& res, const std::string& key,
                                                    bool authorized) {
  Admission admission;
  std::unique_lock<std::mutex> lock(mu_);
  ReceivedRequest& record = requests_.emplace_back();
  record.method = req.method;
  record.path = req.path;
  for (const auto& [name, value] : req.headers) record.headers.emplace_back(name, value);
  record.body = req.body;
  record.idempotency_key = key;
  record.authorized = authorized;
  record.duplicate = !key.empty() && delivered_.count(key) > 0;
  admission.duplicate = record.duplicate;
  if (!authorized) return admission;

  Fault fault = Fault::kNone;
  if (!faults_.empty()) {
    fault = faults_.front();
    faults_.pop_front();
  }
  switch (fault) {
    case Fault::kStatus500:
    case Fault::kStatus429:
      res.status = fault == Fault::kStatus500 ? 500 : 429;
      if (fault == Fault::kStatus429) res.set_header("Retry-After", retry_after_);
      lock.unlock();
      WriteFault(fault, res);
      return admission;
    case Fault::kReset:
      lock.unlock();
      ResetConnection(req.remote_port);
      return admission;
    case Fault::kNone:
    case Fault::kHang:
      break;
  }
  ++accepted_;
  if (!key.empty()) delivered_.insert(key);
  admission.answer = true;
  admission.hang = fault == Fault::kHang;
  return admission;
}

void LoopbackReceiver::HangUntilReleased() {
  std::unique_lock<std::mutex> lock(mu_);
  release_.wait_for(lock, kMaxHang, [this] { return released_; });
}

void LoopbackReceiver::WriteFault(Fault fault, httplib::Response& res) {
  res.set_content(fault == Fault::kStatus500 ? "internal error" : "slow down", "text/plain");
}

// httplib does not expose a request's socket, so it is found by its ports: ours on this
// side, the client's on the other. Lingering off makes the close a reset; shutting both
// directions down now means the client gets no answer at all.
void LoopbackReceiver::ResetConnection(int remote_port) const {
  for (int fd = 3; fd < 4096; ++fd) {
    if (LocalPort(fd, false) != port_ || LocalPort(fd, true) != remote_port) continue;
    const linger off{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &off, sizeof off);
    ::shutdown(fd, SHUT_RDWR);
    return;
  }
}

}  // namespace quell::testing
