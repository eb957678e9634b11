#pragma once

#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

// One ping as a Healthchecks-like receiver logged it.
struct HealthchecksPing {
  std::string kind;  // "start", "success" or "fail"
  std::string rid;   // the rid query parameter; empty when none
  std::string body;
  bool accepted = false;  // answered 200 (not a fault)
};

// A Healthchecks.io-like ping receiver at <Url()> (= <BaseUrl()>/ping/<uuid>): GET or POST
// on the URL itself (success), /start and /fail, each answered "OK"; FailNext() injects 500s,
// 429s, hangs and resets as for the other receivers.
class HealthchecksReceiver : public LoopbackReceiver {
 public:
  HealthchecksReceiver();
  ~HealthchecksReceiver() override = default;

  std::string Url() const { return BaseUrl() + "/ping/" + kUuid; }
  // Every ping in arrival order, faults included.
  std::vector<HealthchecksPing> Pings() const;

  static constexpr const char* kUuid = "5bf6a0a6-6a8a-4e1e-9d1c-2b1d3c4e5f60";

 private:
  std::vector<HealthchecksPing> pings_;  // guarded by mu_
};

}  // namespace quell::testing
