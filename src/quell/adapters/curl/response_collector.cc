#include "quell/adapters/curl/response_collector.h"

#include <exception>
#include <string>
#include <string_view>

namespace quell::curl {
namespace {

// Far more than any API sends; libcurl itself only bounds each header line.
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;

std::string_view Trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

CURLcode ResponseCollector::Attach(CURL* handle) {
  CURLcode rc =
      curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, static_cast<curl_write_callback>(&OnHeader));
  if (rc == CURLE_OK) rc = curl_easy_setopt(handle, CURLOPT_HEADERDATA, this);
  if (rc == CURLE_OK) {
    rc = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, static_cast<curl_write_callback>(&OnBody));
  }
  if (rc == CURLE_OK) rc = curl_easy_setopt(handle, CURLOPT_WRITEDATA, this);
  return rc;
}

// The callbacks are called from C: an exception must not unwind through libcurl.
size_t ResponseCollector::OnHeader(char* data, size_t size, size_t count, void* self) noexcept {
  auto& collector = *static_cast<ResponseCollector*>(self);
  const size_t n = size * count;
  collector.header_bytes_ += n;
  if (collector.header_bytes_ > kMaxHeaderBytes) {
    collector.abort_ = Abort::kHeadersTooLarge;
    return 0;
  }
  try {
    collector.AddHeaderLine(std::string_view(data, n));
  } catch (const std::exception&) {
    collector.abort_ = Abort::kOutOfMemory;
    return 0;
  }
  return n;
}

size_t ResponseCollector::OnBody(char* data, size_t size, size_t count, void* self) noexcept {
  auto& collector = *static_cast<ResponseCollector*>(self);
  const size_t n = size * count;
  std::string& body = collector.response_.body;
  if (n > collector.max_body_bytes_ - body.size()) {
    collector.abort_ = Abort::kBodyTooLarge;
    return 0;
  }
  try {
    body.append(data, n);
  } catch (const std::exception&) {
    collector.abort_ = Abort::kOutOfMemory;
    return 0;
  }
  return n;
}

void ResponseCollector::AddHeaderLine(std::string_view line) {
  core::HttpHeaders& headers = response_.headers;
  if (line.starts_with("HTTP/")) {
    // A status line: whatever came before belonged to an interim 1xx or a proxy's CONNECT.
    headers.clear();
  } else if ((line.starts_with(' ') || line.starts_with('\t')) && !headers.empty()) {
    // obs-fold: a continuation of the previous value (RFC 9112 section 5.2).
    headers.back().second += ' ';
    headers.back().second += Trim(line);
  } else if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
    headers.emplace_back(std::string(Trim(line.substr(0, colon))),
                         std::string(Trim(line.substr(colon + 1))));
  }
}

}  // namespace quell::curl
