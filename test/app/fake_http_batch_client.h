#pragma once

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "quell/core/ports/http_batch_client.h"

namespace quell::testing {

// Plays a libcurl multi on one thread: it starts as many exchanges as each lane's limit allows,
// completes the oldest in flight, starts the next, and so on, answering from a script (its
// last entry repeats; empty: 200). It records every request, the most ever in flight per lane
// and the limits it was given.
class FakeHttpBatchClient : public core::HttpBatchClient {
 public:
  FakeHttpBatchClient& Respond(int status, core::HttpHeaders headers = {}, std::string body = "") {
    script_.emplace_back(core::HttpResponse{status, std::move(headers), std::move(body)});
    return *this;
  }
  // A transport failure (kTimeout: a timeout, kUnavailable: refused or reset, ...).
  FakeHttpBatchClient& Fail(core::ErrorCode code, std::string message) {
    script_.emplace_back(core::MakeError(code, std::move(message)));
    return *this;
  }

  void SendAll(std::span<const core::HttpExchange> exchanges, std::span<const uint32_t> lane_limits,
               const std::function<void(size_t, core::Result<core::HttpResponse>)>& done) override {
    ++calls_;
    limits_.assign(lane_limits.begin(), lane_limits.end());
    std::map<uint32_t, int> in_flight;
    std::deque<size_t> waiting, running;
    for (size_t i = 0; i < exchanges.size(); ++i) waiting.push_back(i);
    while (!waiting.empty() || !running.empty()) {
      for (auto it = waiting.begin(); it != waiting.end();) {
        const uint32_t lane = exchanges[*it].lane;
        const uint32_t limit = lane < lane_limits.size() ? lane_limits[lane] : 1;
        if (in_flight[lane] >= static_cast<int>(limit)) {
          ++it;
          continue;
        }
        max_in_flight_[lane] = std::max(max_in_flight_[lane], ++in_flight[lane]);
        requests_.push_back(exchanges[*it].request);
        lanes_.push_back(lane);
        running.push_back(*it);
        it = waiting.erase(it);
      }
      const size_t next = running.front();
      running.pop_front();
      --in_flight[exchanges[next].lane];
      done(next, NextAnswer());
    }
  }

  int calls() const { return calls_; }
  const std::vector<core::HttpRequest>& requests() const { return requests_; }
  const std::vector<uint32_t>& lanes() const { return lanes_; }  // per request
  const std::vector<uint32_t>& limits() const { return limits_; }
  int max_in_flight(uint32_t lane) { return max_in_flight_[lane]; }

 private:
  core::Result<core::HttpResponse> NextAnswer() {
    if (script_.empty()) return core::HttpResponse{200, {}, ""};
    core::Result<core::HttpResponse> next = script_.front();
    if (script_.size() > 1) script_.pop_front();
    return next;
  }

  std::deque<core::Result<core::HttpResponse>> script_;
  std::vector<core::HttpRequest> requests_;
  std::vector<uint32_t> lanes_;
  std::vector<uint32_t> limits_;
  std::map<uint32_t, int> max_in_flight_;
  int calls_ = 0;
};

}  // namespace quell::testing
