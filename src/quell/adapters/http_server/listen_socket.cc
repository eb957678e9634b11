#include "quell/adapters/http_server/listen_socket.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace quell::http_server {
namespace {

constexpr int kBacklog = 1024;

}  // namespace

core::Result<ListenSocket> OpenListenSocket(const std::string& host, int port,
                                            const std::string& listen_text) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found) != 0) {
    return core::MakeError(core::ErrorCode::kUnavailable,
                           "cannot listen on " + listen_text + ": cannot resolve " + host);
  }
  ListenSocket bound;
  int error = 0;
  for (addrinfo* a = found; a != nullptr && bound.fd < 0; a = a->ai_next) {
    const int fd =
        ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = errno;
      continue;
    }
    // SO_REUSEADDR alone (never SO_REUSEPORT, with which a second daemon would bind the same
    // port and the kernel split the connections): a restart binds at once while old
    // connections linger in TIME_WAIT, and a port in use fails to bind.
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, kBacklog) != 0) {
      error = errno;
      ::close(fd);
      continue;
    }
    bound.fd = fd;
    bound.family = a->ai_family;
  }
  ::freeaddrinfo(found);
  if (bound.fd < 0) {
    return core::MakeError(
        core::ErrorCode::kUnavailable,
        "cannot listen on " + listen_text + ": " +
            (error == EADDRINUSE ? std::string("the address is already in use (another quell "
                                               "run, or another program, holds it)")
             : error != 0        ? std::generic_category().message(error)
                                 : std::string("cannot bind it")));
  }
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  ::getsockname(bound.fd, reinterpret_cast<sockaddr*>(&address), &length);
  const uint16_t net_port = address.ss_family == AF_INET6
                                ? reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port
                                : reinterpret_cast<const sockaddr_in*>(&address)->sin_port;
  bound.port = static_cast<int>(ntohs(net_port));
  return bound;
}

}  // namespace quell::http_server
