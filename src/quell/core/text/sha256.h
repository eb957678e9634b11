#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace quell::core {

// SHA-256 (FIPS 180-4) of `data`. Used where a digest must be identical on every machine and in
// every process, such as outbox idempotency keys; not for secrets.
std::array<uint8_t, 32> Sha256(std::string_view data);

}  // namespace quell::core
