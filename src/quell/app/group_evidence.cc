#include "quell/app/group_evidence.h"

#include <utility>

namespace quell::app {

std::string GroupEvidence(const core::ErrorGroup& group, const core::GroupDetail* detail,
                          const core::RedactOptions& redact, const core::EvidenceOptions& options) {
  core::EvidenceInput input;
  auto add = [&input](const char* name, std::string value) {
    if (!value.empty()) input.fields.emplace_back(name, std::move(value));
  };
  add("group", group.id);
  add("title", group.title);
  add("level", group.level);
  add("count", std::to_string(group.count));
  if (group.last_seen) add("last_seen", core::FormatRfc3339(*group.last_seen));
  if (group.resolved) add("status", "resolved");
  if (detail != nullptr && !detail->events.empty()) {
    const core::GroupEvent& event = detail->events.front();
    add("event_id", event.event_id);
    if (event.at) add("event_at", core::FormatRfc3339(*event.at));
    add("message", event.message.empty() ? group.message : event.message);
    add("exception", event.exception);
  } else {
    add("message", group.message);
  }
  // Sentry's: where the error happens, and the issue's own page, which a message links.
  for (const char* name : {"culprit", "permalink"}) {
    if (const auto value = core::FindLabel(group.fields, name)) add(name, std::string(*value));
  }
  input.tags = group.tags;
  return core::BuildEvidence(input, redact, options);
}

}  // namespace quell::app
