#include "quell/app/dispatch_loop.h"

#include "quell/app/store_health.h"

namespace quell::app {

core::Duration DispatchWait(const DispatchReport& report, core::WallTime now, core::Duration idle) {
  if (report.next_due && *report.next_due <= now) return core::Duration::zero();
  if (report.next_due && *report.next_due - now < idle) return *report.next_due - now;
  return idle;
}

std::string DispatchSummary(const DispatchReport& report) {
  std::string line = "dispatch: " + std::to_string(report.claimed) + " claimed, " +
                     std::to_string(report.sent) + " sent, " + std::to_string(report.retried) +
                     " retried, " + std::to_string(report.dead) + " dead";
  if (report.lost_leases > 0) line += ", " + std::to_string(report.lost_leases) + " lost leases";
  if (report.deferred > 0) line += ", " + std::to_string(report.deferred) + " deferred";
  if (report.trimmed > 0) line += ", " + std::to_string(report.trimmed) + " old rows trimmed";
  if (report.meta_alerts > 0)
    line += ", " + std::to_string(report.meta_alerts) + " dead-letter notices";
  return line;
}

bool RunDispatchRounds(const std::function<DispatchReport()>& round, core::Duration idle,
                       core::Clock& clock, RunControl& control, bool once,
                       const std::function<void(const std::string& line, bool summary)>& say) {
  bool failed = false;
  StoreOutage outage;
  while (!control.stop_requested()) {
    const DispatchReport report = round();
    const StoreOutage::Change change = outage.Observe(report.store_error);
    for (const std::string& error : report.errors) {
      // A store that stopped answering is said when that starts and ends, not every round.
      if (error == report.store_error && change != StoreOutage::Change::kStarted) continue;
      say(error, false);
    }
    if (change == StoreOutage::Change::kEnded) {
      say("the store answers again (after " + std::to_string(outage.failures()) + " failed rounds)",
          false);
    }
    if (report.claimed > 0 || report.trimmed > 0) say(DispatchSummary(report), true);
    failed = failed || !report.errors.empty() || report.dead > 0;
    const core::Duration wait = outage.Wait(DispatchWait(report, clock.Now(), idle));
    if (wait == core::Duration::zero()) continue;
    if (once) break;
    control.WaitFor(clock, wait, /*on_reload=*/false);
  }
  return failed;
}

}  // namespace quell::app
