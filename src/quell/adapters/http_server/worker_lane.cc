#include "quell/adapters/http_server/worker_lane.h"

#include <algorithm>
#include <utility>

namespace quell::http_server {

WorkerLane::WorkerLane(size_t threads) {
  for (size_t i = 0; i < std::max<size_t>(threads, 1); ++i) {
    threads_.emplace_back([this] { Run(); });
  }
}

WorkerLane::~WorkerLane() { Stop(); }

void WorkerLane::Push(Job job) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!stopping_) {
      queue_.push_back(std::move(job));
      wake_.notify_one();
      return;
    }
  }
  job(false);
}

void WorkerLane::Stop() {
  std::deque<Job> left;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    left.swap(queue_);
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  for (Job& job : left) job(false);
}

void WorkerLane::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    job(true);
    lock.lock();
  }
}

}  // namespace quell::http_server
