#pragma once

#include <string>

#include "quell/core/ports/payload_encoder.h"

namespace quell::jsonl {

// The outbox payload as one compact JSON object:
//   {"key":"...","condition":"...","generation":1,"version":1,"transition":"open",
//    "status":"open","opened_at":"...","first_seen_at":"...","last_seen_at":"...",
//    "resolved_at":"...","event_count":1,"evidence":[...]}
// Times absent from the incident are left out; evidence entries are embedded as stored.
class JsonPayloadEncoder : public core::PayloadEncoder {
 public:
  void Encode(const core::Incident& incident, core::TransitionKind transition,
              std::string& out) const override;
};

}  // namespace quell::jsonl
