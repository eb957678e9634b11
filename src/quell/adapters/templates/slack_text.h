#pragma once

#include <string>
#include <string_view>

namespace quell::templates {

// `text` safe inside Slack mrkdwn: Slack reads &, < and > as control characters (links,
// mentions), so they go as the entities Slack documents.
std::string SlackEscape(std::string_view text);
// SlackEscape's text appended to `out`.
void AppendSlackEscaped(std::string& out, std::string_view text);

}  // namespace quell::templates
