#pragma once

#include <string>

#include "quell/app/incident_timeline.h"

namespace quell::text_output {

// An incident's timeline as GET /v1/incidents/{key}/timeline answers it (docs/http.md):
// {"key", "observations": [{"at", "poll_id", "generation", "health", "decision", "reason",
// "version" | null}], "attempts": [{"at", "idempotency_key", "channel", "generation",
// "transition", "attempt", "outcome", "detail"}], "generations": [{"generation", "opened_at" |
// null, "resolved_at" | null}]}, times RFC 3339 UTC. Field names are a stable contract.
std::string TimelineJson(const app::IncidentTimeline& timeline);

}  // namespace quell::text_output
