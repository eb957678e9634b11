#include "multi_instance_chaos_loop.h"

#include <mutex>
#include <string>

namespace quell::testing {
namespace {

using std::chrono::steady_clock;

// The pid in the holder id (host:pid:random) of the poll lease that is held; -1 when none is.
pid_t HolderPid(const PgSchema& db) {
  try {
    const Rows rows = db.Query(
        "SELECT holder FROM poll_leases WHERE holder <> '' AND expires_at > "
        "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint ORDER BY renewed_at DESC "
        "LIMIT 1");
    if (rows.empty()) return -1;
    const std::string& holder = rows[0][0];
    const size_t last = holder.rfind(':');
    const size_t before = holder.rfind(':', last - 1);
    if (last == std::string::npos || before == std::string::npos) return -1;
    return static_cast<pid_t>(std::stol(holder.substr(before + 1, last - before - 1)));
  } catch (const std::exception&) {
    return -1;
  }
}

int64_t SimPolls(sim::SimServer& sim) {
  const std::lock_guard<std::mutex> lock(sim.state().mu);
  return sim.state().polls;
}

}  // namespace

void ChaosLoop::Tick(long long committed, long long end) {
  if (paused_ != nullptr && steady_clock::now() >= resume_at_) {
    paused_->Resume();
    out_.chaos.push_back("SIGCONT " + paused_->name());
    paused_ = nullptr;
  }
  if (busy() || committed < next_ || committed >= end - 2) return;
  const bool kill_holder = events_++ % 4 == 0;
  next_ += 4;
  Instance* target = nullptr;
  const pid_t holder = HolderPid(db_);
  if (kill_holder && holder > 0) {
    for (auto& i : fleet_) target = i->pid() == holder ? i.get() : target;
  }
  if (target == nullptr) target = fleet_[rng_() % fleet_.size()].get();
  const bool is_holder = holder > 0 && target->pid() == holder;
  if (kill_holder || rng_() % 2 == 0) {
    const auto at = steady_clock::now();
    target->Kill9();
    const int64_t polls = SimPolls(sim_);  // every listing the dead one asked for is counted
    if (is_holder) kills_of_holder_.emplace_back(at, polls);
    out_.chaos.push_back("kill -9 " + target->name() + (is_holder ? " (polling)" : "") +
                         " at poll " + std::to_string(committed) + ", restarted");
    target->Start();
    return;
  }
  target->Pause();
  paused_ = target;
  resume_at_ = steady_clock::now() + kLease + std::chrono::seconds(1);
  out_.chaos.push_back("SIGSTOP " + target->name() + (is_holder ? " (polling)" : "") + " at poll " +
                       std::to_string(committed) + " for lease + 1s");
}

void ChaosLoop::Failovers(const std::vector<steady_clock::time_point>& polls) {
  for (const auto& [at, before] : kills_of_holder_) {
    // The first listing after the kill is the one numbered `before` (0-based).
    if (static_cast<size_t>(before) < polls.size()) {
      out_.failovers.push_back(
          std::chrono::duration<double>(polls[static_cast<size_t>(before)] - at).count());
    } else {
      out_.failovers.push_back(-1);  // no listing after it at all
    }
  }
}

}  // namespace quell::testing
