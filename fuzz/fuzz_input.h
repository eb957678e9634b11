#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

// What the fuzzers share: an input read as a few parts (a selector byte, a line, the rest), so
// that one corpus file can say which route, status or mode it drives and still be mostly the
// bytes an outsider sends; and a loud failure for a broken property (libFuzzer keeps the input
// that aborted).
namespace quell::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size)
      : rest_(reinterpret_cast<const char*>(data), size) {}  // NOLINT: libFuzzer's bytes

  // The next byte, 0 once the input is used up.
  uint8_t Byte() {
    if (rest_.empty()) return 0;
    const auto byte = static_cast<uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return byte;
  }
  // Up to the next '\n' (which is dropped), or all that is left.
  std::string_view Line() {
    const size_t end = rest_.find('\n');
    const std::string_view line = rest_.substr(0, end);
    rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end + 1);
    return line;
  }
  std::string_view Rest() {
    const std::string_view rest = rest_;
    rest_ = {};
    return rest;
  }

 private:
  std::string_view rest_;
};

// A property every input must keep does not hold: say which, and abort.
[[noreturn]] inline void Fail(std::string_view what) {
  std::fprintf(stderr, "fuzz: property broken: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

inline void Require(bool holds, std::string_view what) {
  if (!holds) Fail(what);
}

}  // namespace quell::fuzz
