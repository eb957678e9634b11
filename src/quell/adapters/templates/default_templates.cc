#include "quell/adapters/templates/default_templates.h"

namespace quell::templates {
namespace {

constexpr const char* kSummary =
    "[{{severity}}] {{condition}} {{transition_label}}: {{key}}"
    "{{#opened_in_shadow}} (open {{open_for}}){{/opened_in_shadow}}";

// Section tags stand alone on their lines, so mustache drops those lines whole.
constexpr const char* kEmailBody =
    "{{condition}} {{transition_label}} for {{key}}.\n"
    "\n"
    "Status:     {{status}} ({{transition}})\n"
    "{{#opened_in_shadow}}\n"
    "Open since: {{open_since}} ({{open_for}}; opened while the condition was in shadow mode)\n"
    "{{/opened_in_shadow}}\n"
    "Severity:   {{severity}}\n"
    "First seen: {{first_seen_at}}\n"
    "Last seen:  {{last_seen_at}}\n"
    "{{#resolved_at}}\n"
    "Resolved:   {{resolved_at}}\n"
    "{{/resolved_at}}\n"
    "Events:     {{event_count}}\n"
    "{{#link}}\n"
    "Details:    {{link}}\n"
    "{{/link}}\n"
    "{{#has_examples}}\n"
    "\n"
    "Recent examples (redacted):\n"
    "{{#examples}}\n"
    "  - {{text}}\n"
    "{{/examples}}\n"
    "{{/has_examples}}\n"
    "\n"
    "-- \n"
    "quell, incident {{key}} generation {{generation}}\n";

constexpr const char* kSlackBody =
    "{{#is_resolve}}:white_check_mark:{{/is_resolve}}{{^is_resolve}}:rotating_light:"
    "{{/is_resolve}} *{{condition}}* {{transition_label}}: `{{key}}`\n"
    "*Severity:* {{severity}}   *Events:* {{event_count}}   *Last seen:* {{last_seen_at}}"
    "{{#resolved_at}}   *Resolved:* {{resolved_at}}{{/resolved_at}}\n"
    "{{#opened_in_shadow}}_Open since {{open_since}} ({{open_for}}); opened while the condition "
    "was in shadow mode_\n{{/opened_in_shadow}}"
    "{{#has_examples}}{{#examples}}> {{text}}\n{{/examples}}{{/has_examples}}"
    "{{#link}}<{{link}}|Open in quell>{{/link}}";

// GSM-7 characters only, so a message is billed in 160-character segments.
constexpr const char* kSmsBody =
    "{{severity_upper}} {{condition}} {{transition_label}}: {{key}} "
    "({{event_count}} events, last {{last_seen_at}})"
    "{{#opened_in_shadow}} open since {{open_since}}, {{open_for}} (was "
    "shadow){{/opened_in_shadow}}"
    "{{#link}} {{link}}{{/link}}";

constexpr const char* kPagerDutyBody =
    "{{#opened_in_shadow}}Open since {{open_since}} ({{open_for}}), opened in shadow mode; "
    "{{/opened_in_shadow}}"
    "{{event_count}} events, first {{first_seen_at}}, last {{last_seen_at}}"
    "{{#has_examples}}; recent:{{#examples}} [{{text}}]{{/examples}}{{/has_examples}}";

constexpr const char* kWebhookBody =
    "{{condition}} {{transition_label}} for {{key}} ({{severity}}, {{event_count}} events, "
    "last seen {{last_seen_at}})"
    "{{#opened_in_shadow}}; open since {{open_since}}, {{open_for}}, opened in shadow mode"
    "{{/opened_in_shadow}}{{#link}} {{link}}{{/link}}";

}  // namespace

std::optional<TemplatePair> DefaultTemplates(std::string_view channel_type) {
  if (channel_type == "email") return TemplatePair{kSummary, kEmailBody};
  if (channel_type == "slack") return TemplatePair{kSummary, kSlackBody};
  if (channel_type == "sms") return TemplatePair{kSummary, kSmsBody};
  if (channel_type == "pagerduty") return TemplatePair{kSummary, kPagerDutyBody};
  if (channel_type == "webhook") return TemplatePair{kSummary, kWebhookBody};
  return std::nullopt;
}

}  // namespace quell::templates
