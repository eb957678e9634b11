#pragma once

#include <string>
#include <string_view>

#include "quell/core/engine/decision.h"
#include "quell/core/engine/incident.h"
#include "quell/core/text/time.h"

namespace quell::core {

// Renders the outbox payload: the incident snapshot at a transition. Pure; thread-compatible.
class PayloadEncoder {
 public:
  virtual ~PayloadEncoder() = default;
  // Replaces `out` with the payload for `incident` (already in its post-transition state).
  virtual void Encode(const Incident& incident, TransitionKind transition,
                      std::string& out) const = 0;
  // The payload of an open announced late: `incident` opened while its condition was in shadow
  // mode, which it has left by `now`. An open that also says so and for how long it has been
  // open; this default is a plain open.
  virtual void EncodeLateOpen(const Incident& incident, WallTime /*now*/, std::string& out) const {
    Encode(incident, TransitionKind::kOpen, out);
  }
  // The payload of an open held back while the maintenance window `window` covered `incident`,
  // announced at `now` when the window has closed and the incident is still open; this default
  // is a plain open.
  virtual void EncodeOpenAfterMaintenance(const Incident& incident, std::string_view /*window*/,
                                          WallTime /*now*/, std::string& out) const {
    Encode(incident, TransitionKind::kOpen, out);
  }
  // The payload of an open held back while the open incident `inhibitor_key` inhibited
  // `incident` (core/conditions/inhibition.h), announced at `now` when nothing holds it any more
  // and it is still open: an open that says which incident held it and for how long; this
  // default is a plain open.
  virtual void EncodeOpenAfterInhibition(const Incident& incident,
                                         std::string_view /*inhibitor_key*/, WallTime /*now*/,
                                         std::string& out) const {
    Encode(incident, TransitionKind::kOpen, out);
  }
};

}  // namespace quell::core
