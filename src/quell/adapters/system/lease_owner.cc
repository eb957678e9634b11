#include "quell/adapters/system/lease_owner.h"

#include <unistd.h>

#include <random>

namespace quell::system {

std::string DefaultLeaseOwner() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device random;
  return std::string(host) + ":" + std::to_string(getpid()) + ":" + std::to_string(random());
}

}  // namespace quell::system
