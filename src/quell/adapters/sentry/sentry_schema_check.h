#pragma once

#include <string>
#include <vector>

#include "quell/adapters/sentry/sentry_issue_source.h"
#include "quell/core/conditions/key_template.h"

namespace quell::sentry {

// One finding about a Sentry condition, for `quell schema check`: kind is "drift" (an answer
// that does not have the documented shape: the field and what came instead), "refused" (401,
// 403 or 404: the token, the org or the project), "unreachable", or "missing tag" (a warning:
// the newest issue's latest event lacks a tag the key reads, so its key would read "-").
struct SchemaFinding {
  std::string kind;
  std::string text;
  bool warning = false;
};

// Reads the first page of `source`'s issue list and, when the key reads tags.<name>, the
// latest event of its first issue; each answer parsed as a poll parses it. `condition` names
// the condition in every text.
std::vector<SchemaFinding> CheckIssueSchema(const SentryIssueSource& source,
                                            const std::string& condition,
                                            const core::KeyTemplate& key);

}  // namespace quell::sentry
