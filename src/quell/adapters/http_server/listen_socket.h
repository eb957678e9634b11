#pragma once

#include <string>

#include "quell/core/result.h"

namespace quell::http_server {

// A listening TCP socket (non-blocking, close-on-exec) and the port it is bound to.
struct ListenSocket {
  int fd = -1;
  int family = 0;  // AF_INET or AF_INET6
  int port = 0;
};

// Binds host:port (port 0: a free one) with SO_REUSEADDR, never SO_REUSEPORT, and listens.
// kUnavailable naming the cause (an address in use says so) when it cannot; `listen_text` is
// the address as configured, for the message.
core::Result<ListenSocket> OpenListenSocket(const std::string& host, int port,
                                            const std::string& listen_text);

}  // namespace quell::http_server
