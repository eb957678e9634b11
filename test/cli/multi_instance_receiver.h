#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

namespace quell::testing {

// One transition as the receiver acted on it: the first accepted body of its Idempotency-Key
// and how many attempts carried that key.
struct ReceivedTransition {
  nlohmann::json body;
  int attempts = 0;
};

// The webhook receiver of the multi-instance chaos test (docs/channels.md, "What a receiver
// should do"): verifies X-Quell-Signature, keeps one entry per Idempotency-Key and answers 200
// to a key it has seen. The first attempt of every `hang_every`-th new key is accepted and
// then left unanswered for `hang` (longer than the channel's timeout), so the sender times out
// and retries a request that was in fact delivered.
class ChaosWebhookReceiver {
 public:
  ChaosWebhookReceiver(std::string secret, std::chrono::milliseconds hang, int hang_every);
  ~ChaosWebhookReceiver();
  ChaosWebhookReceiver(const ChaosWebhookReceiver&) = delete;
  ChaosWebhookReceiver& operator=(const ChaosWebhookReceiver&) = delete;

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  // By Idempotency-Key.
  std::map<std::string, ReceivedTransition> Entries() const;
  int refused() const;  // requests whose signature did not verify
  int hung() const;     // accepted requests left unanswered past the sender's timeout

 private:
  void Handle(const httplib::Request& req, httplib::Response& res);

  const std::string secret_;
  const std::chrono::milliseconds hang_;
  const int hang_every_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::condition_variable stopping_cv_;
  bool stopping_ = false;
  std::map<std::string, ReceivedTransition> entries_;
  int refused_ = 0;
  int hung_ = 0;
};

}  // namespace quell::testing
