#include "quell/adapters/system/lease_owner.h"

#include <unistd.h>

#include <random>

namespace quell::system {

std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return host;
}

uint64_t ProcessId() { return static_cast<uint64_t>(getpid()); }

std::string DefaultLeaseOwner() {
  std::random_device random;
  return HostName() + ":" + std::to_string(getpid()) + ":" + std::to_string(random());
}

}  // namespace quell::system
