#pragma once

#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include "quell/core/ports/http_client.h"

namespace quell::testing {

// Answers from a script, one entry per Send, and records every request. Once the script is
// used up it repeats its last entry, so "always 503" is a one-line script.
class FakeHttpClient : public core::HttpClient {
 public:
  FakeHttpClient& Respond(int status, core::HttpHeaders headers = {}, std::string body = "") {
    const std::lock_guard<std::mutex> lock(mutex_);
    script_.emplace_back(core::HttpResponse{status, std::move(headers), std::move(body)});
    return *this;
  }
  FakeHttpClient& Fail(core::ErrorCode code, std::string message) {
    const std::lock_guard<std::mutex> lock(mutex_);
    script_.emplace_back(core::MakeError(code, std::move(message)));
    return *this;
  }

  core::Result<core::HttpResponse> Send(const core::HttpRequest& request) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back(request);
    if (script_.empty()) return core::MakeError(core::ErrorCode::kInternal, "no script");
    core::Result<core::HttpResponse> next = script_.front();
    if (script_.size() > 1) script_.pop_front();
    return next;
  }

  std::vector<core::HttpRequest> requests() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  std::mutex mutex_;
  std::deque<core::Result<core::HttpResponse>> script_;
  std::vector<core::HttpRequest> requests_;
};

}  // namespace quell::testing
