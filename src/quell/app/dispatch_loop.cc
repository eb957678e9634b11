#include "quell/app/dispatch_loop.h"

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

}  // namespace quell::app
