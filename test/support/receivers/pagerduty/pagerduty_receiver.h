#pragma once

#include <map>
#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

struct PagerDutyEvent {
  std::string event_action;  // "trigger" or "resolve"
  std::string dedup_key;
  std::string summary;   // trigger only
  std::string severity;  // trigger only
  std::string source;    // trigger only
};

// PagerDuty's Events API v2: POST <BaseUrl()>/v2/enqueue, checking routing_key and the event
// (400 "Event object is invalid" with PagerDuty's errors list otherwise), answering 202.
// Deduplicates as PagerDuty does: the same action for the same dedup_key, again, changes
// nothing (a retried trigger does not page twice).
class PagerDutyReceiver : public LoopbackReceiver {
 public:
  explicit PagerDutyReceiver(const std::string& routing_key);
  ~PagerDutyReceiver() override = default;

  // Events that changed an alert, duplicates left out.
  std::vector<PagerDutyEvent> Events() const;
  // "triggered" or "resolved" per dedup_key.
  std::map<std::string, std::string> Alerts() const;

 private:
  void WriteFault(Fault fault, httplib::Response& res) override;

  std::vector<PagerDutyEvent> events_;         // guarded by mu_
  std::map<std::string, std::string> alerts_;  // guarded by mu_
};

}  // namespace quell::testing
