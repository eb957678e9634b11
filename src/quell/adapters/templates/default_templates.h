#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace quell::templates {

// A channel's two templates: the subject (e-mail subject, Slack fallback text, PagerDuty
// summary, SMS: unused) and the body.
struct TemplatePair {
  std::string subject;
  std::string body;
};

// The built-in templates for "webhook", "slack", "email", "sms", "pagerduty" or "opsgenie"; nullopt
// for another type. docs/templates.md shows them.
std::optional<TemplatePair> DefaultTemplates(std::string_view channel_type);

}  // namespace quell::templates
