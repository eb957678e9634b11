#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace quell::jsonl {

// Splits a file descriptor's bytes into lines without copying them one by one. Every line it
// hands out is followed by at least `padding` readable bytes, as the JSON parser requires.
// Not thread-safe.
class LineReader {
 public:
  LineReader(int fd, size_t padding, size_t chunk_bytes = size_t{1} << 20);

  // Sets `line` (without its '\n' or "\r\n") and `readable` (bytes readable from line.data()).
  // Returns false at end of input; a last line without '\n' is still returned. The views stay
  // valid until the next call. `error` is set when a read failed (errno's value).
  bool Next(std::string_view& line, size_t& readable);

  uint64_t line_number() const { return line_number_; }
  int error() const { return error_; }

 private:
  bool Fill();

  int fd_;
  size_t padding_;
  size_t chunk_bytes_;
  std::vector<char> buffer_;
  size_t begin_ = 0;  // first unread byte
  size_t end_ = 0;    // one past the last byte read
  bool eof_ = false;
  int error_ = 0;
  uint64_t line_number_ = 0;
};

}  // namespace quell::jsonl
