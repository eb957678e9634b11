#pragma once

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "loopback_receiver.h"
#include "quell/core/text/time.h"

namespace quell::bench {

// A webhook receiver that does nothing expensive: answers 200 and notes when each idempotency
// key arrived and how many body bytes came. A big pool and a widened backlog so it is never the
// narrow part of a benchmark.
class FastReceiver {
 public:
  explicit FastReceiver(int threads) {
    server_.new_task_queue = [threads] {
      return new httplib::ThreadPool(static_cast<size_t>(threads));
    };
    server_.set_keep_alive_max_count(1000000);
    server_.set_keep_alive_timeout(5);
    server_.set_tcp_nodelay(true);
    server_.set_payload_max_length(256U * 1024U * 1024U);
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      const core::WallTime at = Now();
      {
        const std::lock_guard<std::mutex> lock(mu_);
        arrivals_.emplace_back(req.get_header_value("Idempotency-Key"), at);
        bytes_ += req.body.size();
      }
      res.set_content("ok", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) {
      std::fprintf(stderr, "receiver: bind failed\n");
      std::exit(1);  // NOLINT(concurrency-mt-unsafe): a bench stops at its first failure
    }
    quell::testing::WidenListenBacklog(port_);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~FastReceiver() {
    server_.stop();
    thread_.join();
  }
  FastReceiver(const FastReceiver&) = delete;
  FastReceiver& operator=(const FastReceiver&) = delete;

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  size_t Count() {
    const std::lock_guard<std::mutex> lock(mu_);
    return arrivals_.size();
  }
  uint64_t Bytes() {
    const std::lock_guard<std::mutex> lock(mu_);
    return bytes_;
  }
  // When the latest request arrived; the epoch when none did.
  core::WallTime LastArrival() {
    const std::lock_guard<std::mutex> lock(mu_);
    core::WallTime last{};
    for (const auto& arrival : arrivals_) last = std::max(last, arrival.second);
    return last;
  }
  std::vector<std::pair<std::string, core::WallTime>> Take() {
    const std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(arrivals_, {});
  }

  static core::WallTime Now() {
    return std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now());
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::vector<std::pair<std::string, core::WallTime>> arrivals_;
  uint64_t bytes_ = 0;
};

}  // namespace quell::bench
