#include "quell/demo/demo_receiver.h"

#include <httplib.h>

#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>

#include "quell/adapters/channels/webhook/webhook_signature.h"

namespace quell::demo {

DemoReceiver::DemoReceiver(std::string secret, core::Clock& clock, core::Duration hold)
    : secret_(std::move(secret)), clock_(clock), hold_(hold) {}

DemoReceiver::~DemoReceiver() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

bool DemoReceiver::Start() {
  // A sender that gave up closes the held connection; httplib's write must not raise SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  server_ = std::make_unique<httplib::Server>();
  server_->Post(".*", [this](const httplib::Request& request, httplib::Response& response) {
    int status = 200;
    Receive(request.get_header_value("Idempotency-Key"),
            request.get_header_value("X-Quell-Timestamp"),
            request.get_header_value("X-Quell-Signature"), request.body, status);
    response.status = status;
    response.set_content(status == 200 ? R"({"ok":true})" : R"({"ok":false})", "application/json");
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) return false;
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  while (!server_->is_running()) std::this_thread::yield();
  return true;
}

std::string DemoReceiver::Url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/quell";
}

void DemoReceiver::Receive(const std::string& key, const std::string& timestamp,
                           const std::string& signature, const std::string& body, int& status) {
  // The signature was made on the sender's (compressed) clock; a day of slack covers the
  // demo's whole story.
  if (!channels::VerifyWebhookSignature(secret_, timestamp, signature, body, clock_.Now(),
                                        std::chrono::hours(24))
           .ok()) {
    const std::lock_guard<std::mutex> lock(mu_);
    ++rejected_;
    status = 401;
    return;
  }
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  Arrival arrival;
  arrival.at = clock_.Now();
  arrival.idempotency_key = key;
  arrival.transition = doc.is_object() ? doc.value("transition", "") : "";
  std::unique_lock<std::mutex> lock(mu_);
  for (const Arrival& earlier : arrivals_) {
    if (earlier.idempotency_key == key) arrival.duplicate = true;
  }
  // Received and kept, then the answer is late: the sender times out on a delivered message.
  arrival.held = !held_one_;
  held_one_ = true;
  if (!arrival.duplicate) ++distinct_;
  arrivals_.push_back(arrival);
  changed_.notify_all();
  if (arrival.held) {
    changed_.wait_for(lock, hold_, [this] { return stopping_; });
  }
}

std::vector<DemoReceiver::Arrival> DemoReceiver::arrivals() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return arrivals_;
}

size_t DemoReceiver::rejected() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return rejected_;
}

bool DemoReceiver::WaitForDistinct(size_t n, core::Duration timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return distinct_ >= n || stopping_; }) &&
         distinct_ >= n;
}

}  // namespace quell::demo
