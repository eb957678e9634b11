#pragma once

#include <string_view>
#include <vector>

#include "quell/core/conditions/error_group.h"
#include "quell/core/engine/labels.h"
#include "quell/core/ports/http_client.h"
#include "quell/core/result.h"

namespace quell::sentry {

// Sentry's answers mapped to quell's shapes. Pure: no I/O, no clock. `what` names the request
// in every message ("GET .../issues/ (page 2)"); messages quote no header, and the remote's own
// words ({"detail": "..."}) are cut short and redacted.

// The error an answer with a status other than 200 is: 401/403 kPermissionDenied, 404
// kNotFound, 429 and 5xx kUnavailable (what is left after the retrying client's Retry-After
// waits; its note is appended), any other kRejected.
core::Error StatusError(const core::HttpResponse& response, std::string_view what);

// One page of GET /api/0/projects/{org}/{project}/issues/: a JSON array of issues, each read
// strictly, since a renamed or retyped field would otherwise observe the wrong thing quietly:
// id, title, status, count (Sentry sends it as a string of digits), firstSeen and lastSeen
// (RFC 3339) are required; shortId, culprit, level, permalink and project.slug are read when
// present and not null. status other than "unresolved" (resolved, ignored) is a healthy issue.
// The key fields short_id, project, culprit and permalink land in ErrorGroup::fields.
// kCorrupt naming the place, e.g. `issues[2].count: expected a string of digits, got 12`.
core::Result<std::vector<core::ErrorGroup>> ParseIssuePage(std::string_view body,
                                                           std::string_view what);

// GET /api/0/organizations/{org}/issues/{id}/events/latest/: the event (eventID, dateCreated,
// message, metadata.type/value as its exception) and its tags, [{key, value}] -> labels.
struct LatestEvent {
  core::GroupEvent event;
  core::Labels tags;  // sorted by name
};
core::Result<LatestEvent> ParseLatestEvent(std::string_view body, std::string_view what);

}  // namespace quell::sentry
