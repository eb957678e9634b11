#include "quell/adapters/http_server/held_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace quell::http_server {
namespace {

using Steady = std::chrono::steady_clock;

// "ip", port of a socket address.
void Describe(const sockaddr_storage& address, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    port = ntohs(v6->sin6_port);
  } else {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    port = ntohs(v4->sin_port);
  }
  ip = text;
}

}  // namespace

HeldStream::HeldStream(int fd, std::string buffered, Steady::time_point read_deadline,
                       Steady::duration write_timeout)
    : fd_(fd),
      buffered_(std::move(buffered)),
      read_deadline_(read_deadline),
      write_timeout_(write_timeout) {}

bool HeldStream::WaitFor(short events, Steady::time_point until) const {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Steady::now()).count();
    if (left <= 0) return false;
    pollfd p{fd_, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 60000)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

bool HeldStream::is_readable() const {
  return offset_ < buffered_.size() || WaitFor(POLLIN, read_deadline_);
}

bool HeldStream::is_writable() const { return WaitFor(POLLOUT, Steady::now() + write_timeout_); }

ssize_t HeldStream::read(char* ptr, size_t size) {
  if (offset_ < buffered_.size()) {
    const size_t n = std::min(size, buffered_.size() - offset_);
    std::memcpy(ptr, buffered_.data() + offset_, n);
    offset_ += n;
    return static_cast<ssize_t>(n);
  }
  for (;;) {
    if (!WaitFor(POLLIN, read_deadline_)) return -1;
    const ssize_t n = ::recv(fd_, ptr, size, 0);
    if (n >= 0) return n;
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
  }
}

ssize_t HeldStream::write(const char* ptr, size_t size) {
  const auto until = Steady::now() + write_timeout_;
  for (;;) {
    if (!WaitFor(POLLOUT, until)) return -1;
    const ssize_t n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
    if (n >= 0) return n;
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
  }
}

void HeldStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    Describe(address, ip, port);
  }
}

void HeldStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    Describe(address, ip, port);
  }
}

std::string HeldStream::TakeUnread() {
  std::string unread = buffered_.substr(std::min(offset_, buffered_.size()));
  buffered_.clear();
  offset_ = 0;
  return unread;
}

}  // namespace quell::http_server
