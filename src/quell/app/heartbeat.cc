#include "quell/app/heartbeat.h"

#include <algorithm>
#include <utility>

#include "quell/core/redact/redact.h"

namespace quell::app {
namespace {

// "{base}{suffix}?rid=RUN", keeping a query string the base URL may already have.
std::string PingUrl(const std::string& base, std::string_view suffix, const std::string& rid) {
  std::string url;
  const size_t query = base.find('?');
  url.append(base, 0, query);
  while (!url.empty() && url.back() == '/') url.pop_back();
  url.append(suffix);
  if (query != std::string::npos) {
    url.append(base, query, std::string::npos);
    url.append("&rid=");
  } else {
    url.append("?rid=");
  }
  url.append(rid);  // a UUID: nothing to encode
  return url;
}

void CutUtf8(std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) --cut;
  text.resize(cut);
}

bool IsRetryableStatus(int status) { return status == 429 || status >= 500; }

}  // namespace

std::string HeartbeatFailureReason(const CycleReport& report, size_t max_bytes) {
  std::string text;
  for (const ConditionOutcome& c : report.conditions) {
    if (c.source_ok && c.applied) continue;
    text.append(c.condition);
    if (!c.source_ok) {
      text.append(": source ").append(c.source).append(" failed: ").append(c.source_error);
    }
    if (!c.applied) {
      text.append(c.source_ok ? ": " : "; ").append("not committed: ").append(c.apply_error);
    }
    text.push_back('\n');
  }
  if (text.empty()) text = "cycle failed\n";
  std::string clean = core::RedactErrorText(text, /*max_bytes=*/0);
  CutUtf8(clean, max_bytes);
  return clean;
}

Heartbeat::Heartbeat(core::HttpClient& http, core::Clock& clock, HeartbeatOptions options)
    : http_(http), clock_(clock), options_(std::move(options)), worker_([this] { Run(); }) {}

Heartbeat::~Heartbeat() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

void Heartbeat::OnCycleStart(const std::string& run_id, core::WallTime /*at*/) {
  Enqueue(Ping{"GET", PingUrl(options_.url, "/start", run_id), {}});
}

void Heartbeat::OnCycleEnd(const std::string& run_id, const CycleReport& report,
                           core::WallTime /*at*/) {
  if (report.ok()) {
    Enqueue(Ping{"GET", PingUrl(options_.url, "", run_id), {}});
  } else {
    Enqueue(Ping{"POST", PingUrl(options_.url, "/fail", run_id),
                 HeartbeatFailureReason(report, options_.max_reason_bytes)});
  }
}

void Heartbeat::OnDispatch(const DispatchReport& /*report*/, core::WallTime /*at*/) {}

void Heartbeat::Enqueue(Ping ping) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    // A stale ping is worth less than a fresh one: the receiver cares about the latest cycle.
    while (!queue_.empty() && queue_.size() >= std::max<size_t>(options_.queue_capacity, 1)) {
      queue_.pop_front();
      ++stats_.dropped;
    }
    queue_.push_back(std::move(ping));
  }
  wake_.notify_one();
}

void Heartbeat::WaitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return (queue_.empty() && !busy_) || stopping_; });
}

HeartbeatStats Heartbeat::Stats() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void Heartbeat::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) {
      stats_.dropped += queue_.size();
      queue_.clear();
      idle_.notify_all();
      return;
    }
    Ping ping = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Send(ping);
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_.notify_all();
  }
}

void Heartbeat::Send(const Ping& ping) {
  core::HttpRequest request;
  request.method = ping.method;
  request.url = ping.url;
  request.body = ping.body;
  if (!ping.body.empty()) request.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
  request.connect_timeout = options_.timeout;
  request.total_timeout = options_.timeout;
  core::Duration backoff = options_.first_backoff;
  const uint32_t attempts = std::max<uint32_t>(options_.max_attempts, 1);
  for (uint32_t attempt = 1;; ++attempt) {
    auto response = http_.Send(request);
    const bool ok = response && response->status >= 200 && response->status < 300;
    const bool retryable =
        response ? IsRetryableStatus(response->status) : response.error().IsRetryable();
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (ok) {
        ++stats_.sent;
        stats_.last_at = clock_.Now();
        stats_.last_ok = true;
        return;
      }
      if (!retryable || attempt >= attempts || stopping_) {
        ++stats_.failed;
        stats_.last_at = clock_.Now();
        stats_.last_ok = false;
        return;
      }
      ++stats_.retries;
    }
    clock_.SleepFor(backoff);  // outside the lock: the callbacks never wait on the worker
    backoff *= 2;
  }
}

}  // namespace quell::app
