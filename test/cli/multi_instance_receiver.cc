#include "multi_instance_receiver.h"

#include <stdexcept>

#include "quell/adapters/channels/webhook/webhook_signature.h"

namespace quell::testing {

ChaosWebhookReceiver::ChaosWebhookReceiver(std::string secret, std::chrono::milliseconds hang,
                                           int hang_every)
    : secret_(std::move(secret)), hang_(hang), hang_every_(hang_every) {
  server_.Post(".*",
               [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); });
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("chaos receiver: bind failed");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  // stop() before the accept loop runs would be lost, and the thread would never end.
  while (!server_.is_running()) std::this_thread::yield();
}

ChaosWebhookReceiver::~ChaosWebhookReceiver() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stopping_cv_.notify_all();
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

void ChaosWebhookReceiver::Handle(const httplib::Request& req, httplib::Response& res) {
  const auto now = std::chrono::time_point_cast<core::Duration>(std::chrono::system_clock::now());
  const core::Status verified =
      channels::VerifyWebhookSignature(secret_, req.get_header_value("X-Quell-Timestamp"),
                                       req.get_header_value("X-Quell-Signature"), req.body, now);
  std::unique_lock<std::mutex> lock(mu_);
  if (!verified.ok()) {
    ++refused_;
    res.status = 401;
    res.set_content(verified.error().message, "text/plain");
    return;
  }
  const std::string key = req.get_header_value("Idempotency-Key");
  auto [entry, fresh] = entries_.try_emplace(key);
  if (fresh) entry->second.body = nlohmann::json::parse(req.body, nullptr, false);
  ++entry->second.attempts;
  // Processed: a retry of this key from now on is a duplicate, answered 200 without effect.
  if (fresh && hang_every_ > 0 && entries_.size() % static_cast<size_t>(hang_every_) == 0) {
    ++hung_;
    stopping_cv_.wait_for(lock, hang_, [this] { return stopping_; });
  }
  res.status = 200;
  res.set_content(R"({"received":true})", "application/json");
}

std::map<std::string, ReceivedTransition> ChaosWebhookReceiver::Entries() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return entries_;
}

int ChaosWebhookReceiver::refused() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return refused_;
}

int ChaosWebhookReceiver::hung() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return hung_;
}

}  // namespace quell::testing
