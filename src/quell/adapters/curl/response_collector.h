#pragma once

#include <curl/curl.h>

#include <cstddef>

#include "quell/core/ports/http_client.h"

namespace quell::curl {

// Receives one transfer's response headers and body through libcurl's callbacks, within
// limits. A callback that stops the transfer records why, since libcurl then reports only
// CURLE_WRITE_ERROR. Not thread-safe: one per transfer.
class ResponseCollector {
 public:
  enum class Abort { kNone, kBodyTooLarge, kHeadersTooLarge, kOutOfMemory };

  explicit ResponseCollector(size_t max_body_bytes) : max_body_bytes_(max_body_bytes) {}

  // Points `handle`'s header and write callbacks at this collector.
  CURLcode Attach(CURL* handle);

  core::HttpResponse& response() { return response_; }
  Abort abort() const { return abort_; }

 private:
  static size_t OnHeader(char* data, size_t size, size_t count, void* self) noexcept;
  static size_t OnBody(char* data, size_t size, size_t count, void* self) noexcept;
  void AddHeaderLine(std::string_view line);

  const size_t max_body_bytes_;
  size_t header_bytes_ = 0;
  Abort abort_ = Abort::kNone;
  core::HttpResponse response_;
};

}  // namespace quell::curl
