#pragma once

#include <cstdint>
#include <string>

namespace quell::system {

// A lease owner id unique to this process: "host:pid:random".
std::string DefaultLeaseOwner();

// This machine's host name ("" when unknown) and this process's id, as `quell status` shows
// the instances.
std::string HostName();
uint64_t ProcessId();

}  // namespace quell::system
