#pragma once

#include <string>

#include "quell/core/ports/payload_encoder.h"

namespace quell::jsonl {

// The outbox payload as one compact JSON object:
//   {"key":"...","condition":"...","generation":1,"version":1,"transition":"open",
//    "status":"open","opened_at":"...","first_seen_at":"...","last_seen_at":"...",
//    "resolved_at":"...","event_count":1,"labels":{"tenant":"t1",...},"upstream_count":12,
//    "upstream_count_since_last_message":4,"evidence":[...]}
// Times absent from the incident are left out, and so are the upstream counts when the source
// stated none (labels are always there, {} when none); evidence entries are embedded as
// stored. A late
// open (the condition left shadow mode) adds "opened_in_shadow":true, "announced_at" and
// "open_for_seconds" (announced_at - opened_at).
class JsonPayloadEncoder : public core::PayloadEncoder {
 public:
  void Encode(const core::Incident& incident, core::TransitionKind transition,
              std::string& out) const override;
  void EncodeLateOpen(const core::Incident& incident, core::WallTime now,
                      std::string& out) const override;
  // Adds "opened_in_maintenance" (the window's name), "announced_at" and "open_for_seconds".
  void EncodeOpenAfterMaintenance(const core::Incident& incident, std::string_view window,
                                  core::WallTime now, std::string& out) const override;
  // Adds "held_behind" (the inhibitor's key), "announced_at" and "open_for_seconds".
  void EncodeOpenAfterInhibition(const core::Incident& incident, std::string_view inhibitor_key,
                                 core::WallTime now, std::string& out) const override;
};

}  // namespace quell::jsonl
