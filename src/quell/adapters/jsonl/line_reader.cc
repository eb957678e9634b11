#include "quell/adapters/jsonl/line_reader.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace quell::jsonl {

LineReader::LineReader(int fd, size_t padding, size_t chunk_bytes)
    : fd_(fd), padding_(padding), chunk_bytes_(chunk_bytes), buffer_(chunk_bytes + padding) {}

bool LineReader::Fill() {
  // Move the unread tail to the front, grow when one line is longer than the buffer.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buffer_.size() - end_ < chunk_bytes_ / 2 + padding_) {
    buffer_.resize(buffer_.size() * 2);
  }
  const size_t room = buffer_.size() - end_ - padding_;
  ssize_t n = 0;
  do {
    n = ::read(fd_, buffer_.data() + end_, room);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    error_ = errno;
    eof_ = true;
    return false;
  }
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += static_cast<size_t>(n);
  return true;
}

bool LineReader::Next(std::string_view& line, size_t& readable) {
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* newline = std::memchr(start, '\n', end_ - begin_);
    if (newline != nullptr || (eof_ && begin_ < end_)) {
      const char* stop =
          newline != nullptr ? static_cast<const char*>(newline) : buffer_.data() + end_;
      size_t length = static_cast<size_t>(stop - start);
      begin_ += length + (newline != nullptr ? 1 : 0);
      if (length > 0 && start[length - 1] == '\r') --length;
      line = std::string_view(start, length);
      readable = static_cast<size_t>(buffer_.data() + buffer_.size() - start);
      ++line_number_;
      return true;
    }
    if (eof_ || !Fill()) {
      if (begin_ < end_) continue;  // hand out the unterminated last line
      return false;
    }
  }
}

}  // namespace quell::jsonl
