#pragma once

#include <string>

namespace quell::system {

// A lease owner id unique to this process: "host:pid:random".
std::string DefaultLeaseOwner();

}  // namespace quell::system
