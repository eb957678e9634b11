#include "quell/adapters/templates/default_templates.h"

namespace quell::templates {
namespace {

constexpr const char* kSummary =
    "[{{severity}}] {{condition}} {{transition_label}}: {{key}}{{#summary}}: "
    "{{summary}}{{/summary}}"
    "{{#opened_in_shadow}} (open {{open_for}}){{/opened_in_shadow}}"
    "{{#held_behind}} (held behind {{held_behind}} for {{open_for}}){{/held_behind}}";

// A page's one line says what is failing and where, not only the key.
constexpr const char* kPagerDutySummary =
    "[{{severity}}] {{condition}} {{transition_label}}: {{key}}: {{what}} ({{where}})"
    "{{#opened_in_shadow}} (open {{open_for}}){{/opened_in_shadow}}"
    "{{#held_behind}} (held behind {{held_behind}} for {{open_for}}){{/held_behind}}";

// Section tags stand alone on their lines, so mustache drops those lines whole.
constexpr const char* kEmailBody =
    "{{condition}} {{transition_label}} for {{key}}.\n"
    "\n"
    "What:       {{what}}\n"
    "{{#description}}\n"
    "About:      {{description}}\n"
    "{{/description}}\n"
    "Where:      {{where}}\n"
    "{{#runbook_url}}\n"
    "Runbook:    {{runbook_url}}\n"
    "{{/runbook_url}}\n"
    "Status:     {{status}} ({{transition}})\n"
    "{{#opened_in_shadow}}\n"
    "Open since: {{open_since}} ({{open_for}}; opened while the condition was in shadow mode)\n"
    "{{/opened_in_shadow}}\n"
    "{{#held_behind}}\n"
    "Held:       behind {{held_behind}} since {{open_since}} ({{open_for}}); sent now that it "
    "has resolved\n"
    "{{/held_behind}}\n"
    "Severity:   {{severity}}\n"
    "{{^pushed}}\n"
    "Failing:    since {{since}}, for {{failing_for}}\n"
    "{{/pushed}}\n"
    "{{#pushed}}\n"
    "Firing:     since {{since}}, for {{failing_for}}\n"
    "{{/pushed}}\n"
    "First seen: {{first_seen_at}}\n"
    "Last seen:  {{last_seen_at}}\n"
    "{{#resolved_at}}\n"
    "Resolved:   {{resolved_at}}\n"
    "{{/resolved_at}}\n"
    "{{^pushed}}\n"
    "Events:     {{event_count}}\n"
    "Counts:     {{count_text}}\n"
    "{{/pushed}}\n"
    "{{#pushed}}\n"
    "Pushes:     {{event_count}} received while firing\n"
    "{{/pushed}}\n"
    "{{#has_changes}}\n"
    "Changed:    {{changes}}\n"
    "{{/has_changes}}\n"
    "{{#source_url}}\n"
    "Source:     {{source_url}}\n"
    "{{/source_url}}\n"
    "{{#link}}\n"
    "Details:    {{link}}\n"
    "{{/link}}\n"
    "Next step:  {{next_step}}\n"
    "{{^pushed}}\n"
    "{{#has_examples}}\n"
    "\n"
    "Recent examples (redacted):\n"
    "{{#examples}}\n"
    "  - {{text}}\n"
    "{{/examples}}\n"
    "{{/has_examples}}\n"
    "{{/pushed}}\n"
    "\n"
    "-- \n"
    "quell, incident {{key}} generation {{generation}}\n";

constexpr const char* kSlackBody =
    "{{#is_resolve}}:white_check_mark:{{/is_resolve}}{{^is_resolve}}:rotating_light:"
    "{{/is_resolve}} *{{condition}}* {{transition_label}}: `{{key}}`\n"
    "*{{what}}*\n"
    "{{#description}}{{description}}\n{{/description}}"
    "*Where:* {{where}}\n"
    "*Severity:* {{severity}}   {{^pushed}}*Events:* {{event_count}} ({{count_text}})   "
    "{{/pushed}}*Last seen:* {{last_seen_at}}"
    "{{#resolved_at}}   *Resolved:* {{resolved_at}}{{/resolved_at}}\n"
    "*{{#pushed}}Firing{{/pushed}}{{^pushed}}Failing{{/pushed}} since* {{since}} "
    "({{failing_for}})\n"
    "{{#runbook_url}}*Runbook:* <{{runbook_url}}|open the runbook>\n{{/runbook_url}}"
    "{{#source_url}}*Source:* <{{source_url}}|open at the source>\n{{/source_url}}"
    "{{#opened_in_shadow}}_Open since {{open_since}} ({{open_for}}); opened while the condition "
    "was in shadow mode_\n{{/opened_in_shadow}}"
    "{{#held_behind}}_Held behind `{{held_behind}}` since {{open_since}} ({{open_for}}); sent now "
    "that it has resolved_\n{{/held_behind}}"
    "{{#has_changes}}*Changed:* {{changes}}\n{{/has_changes}}"
    "{{^pushed}}{{#has_examples}}{{#examples}}> {{text}}\n{{/examples}}{{/has_examples}}{{/pushed}}"
    "*Next step:* {{next_step}}\n"
    "{{#link}}<{{link}}|Open in quell>{{/link}}";

// GSM-7 characters only, so a message is billed in 160-character segments; the most needed
// first, since a long text is cut at the segment limit.
constexpr const char* kSmsBody =
    "{{severity_upper}} {{condition}} {{transition_label}}: {{key}}: {{what}} ({{where}}); "
    "{{count_text}}{{^pushed}}, since {{since}}{{/pushed}}."
    "{{#opened_in_shadow}} open since {{open_since}}, {{open_for}} (was "
    "shadow).{{/opened_in_shadow}}"
    "{{#held_behind}} Held behind {{held_behind}} for {{open_for}}.{{/held_behind}}"
    "{{^is_resolve}} Ack: {{#ack_link}}{{ack_link}}{{/ack_link}}{{^ack_link}}{{ack_command}}"
    "{{/ack_link}}{{/is_resolve}}"
    "{{#link}} {{link}}{{/link}}";

constexpr const char* kPagerDutyBody =
    "{{#opened_in_shadow}}Open since {{open_since}} ({{open_for}}), opened in shadow mode; "
    "{{/opened_in_shadow}}"
    "{{#held_behind}}Held behind {{held_behind}} since {{open_since}} ({{open_for}}); "
    "{{/held_behind}}"
    "{{what}}{{#description}} - {{description}}{{/description}} ({{where}}); "
    "{{^pushed}}{{event_count}} events ({{count_text}}), failing{{/pushed}}"
    "{{#pushed}}firing{{/pushed}} since {{since}} ({{failing_for}}), first {{first_seen_at}}, "
    "last {{last_seen_at}}{{#runbook_url}}; runbook {{runbook_url}}{{/runbook_url}}"
    "{{#source_url}}; source {{source_url}}{{/source_url}}"
    "{{#has_changes}}; changed: {{changes}}{{/has_changes}}"
    "{{^pushed}}{{#has_examples}}; recent:{{#examples}} [{{text}}]{{/examples}}{{/has_examples}}"
    "{{/pushed}}"
    "; next step: {{next_step}}{{#link}}; details {{link}}{{/link}}";

constexpr const char* kWebhookBody =
    "{{condition}} {{transition_label}} for {{key}}: {{what}}"
    "{{#description}} - {{description}}{{/description}} ({{where}}; {{severity}}, "
    "{{^pushed}}{{event_count}} events, {{count_text}}, failing{{/pushed}}{{#pushed}}firing"
    "{{/pushed}} since {{since}} for {{failing_for}}, last seen {{last_seen_at}})"
    "{{#runbook_url}}; runbook: {{runbook_url}}{{/runbook_url}}"
    "{{#source_url}}; source: {{source_url}}{{/source_url}}"
    "{{#opened_in_shadow}}; open since {{open_since}}, {{open_for}}, opened in shadow mode"
    "{{/opened_in_shadow}}{{#held_behind}}; held behind {{held_behind}} since {{open_since}}, "
    "{{open_for}}{{/held_behind}}{{#has_changes}}; changed: {{changes}}{{/has_changes}}"
    "{{^pushed}}{{#has_examples}}; recent:{{#examples}} [{{text}}]{{/examples}}{{/has_examples}}"
    "{{/pushed}}"
    ". Next step: {{next_step}}.{{#link}} {{link}}{{/link}}";

// Google Chat: its own light markup, *bold* and `code`, and <url|text> links.
constexpr const char* kGoogleChatBody =
    "{{#is_resolve}}\u2705{{/is_resolve}}{{^is_resolve}}\U0001F6A8{{/is_resolve}} "
    "{{condition}} {{transition_label}}: `{{key}}`\n"
    "*{{what}}*\n"
    "{{#description}}{{description}}\n{{/description}}"
    "Where: {{where}}\n"
    "Severity: {{severity}}   {{^pushed}}Events: {{event_count}} ({{count_text}})   {{/pushed}}"
    "Last seen: {{last_seen_at}}{{#resolved_at}}   Resolved: {{resolved_at}}{{/resolved_at}}\n"
    "{{#pushed}}Firing{{/pushed}}{{^pushed}}Failing{{/pushed}} since {{since}} "
    "({{failing_for}})\n"
    "{{#runbook_url}}Runbook: <{{runbook_url}}|open the runbook>\n{{/runbook_url}}"
    "{{#source_url}}Source: <{{source_url}}|open at the source>\n{{/source_url}}"
    "{{#opened_in_shadow}}_Open since {{open_since}} ({{open_for}}); opened while the condition "
    "was in shadow mode_\n{{/opened_in_shadow}}"
    "{{#held_behind}}_Held behind `{{held_behind}}` since {{open_since}} ({{open_for}}); sent "
    "now that it has resolved_\n{{/held_behind}}"
    "{{#has_changes}}Changed: {{changes}}\n{{/has_changes}}"
    "{{^pushed}}{{#has_examples}}{{#examples}}> {{text}}\n{{/examples}}{{/has_examples}}{{/pushed}}"
    "Next step: {{next_step}}"
    "{{#link}}\n<{{link}}|Open in quell>{{/link}}";

// ntfy: the subject is the notification's title, so the body starts with what fails; a phone
// shows the first lines.
constexpr const char* kNtfyBody =
    "{{what}} ({{where}})\n"
    "{{#description}}{{description}}\n{{/description}}"
    "{{^pushed}}{{count_text}}, failing{{/pushed}}{{#pushed}}Firing{{/pushed}} since {{since}} "
    "({{failing_for}}), last seen {{last_seen_at}}"
    "{{#resolved_at}}, resolved {{resolved_at}}{{/resolved_at}}\n"
    "{{#opened_in_shadow}}Open since {{open_since}} ({{open_for}}), opened in shadow mode\n"
    "{{/opened_in_shadow}}"
    "{{#held_behind}}Held behind {{held_behind}} since {{open_since}} ({{open_for}})\n"
    "{{/held_behind}}"
    "{{#has_changes}}Changed: {{changes}}\n{{/has_changes}}"
    "Next step: {{next_step}}";

// Telegram, sent as plain text (no parse_mode): nothing needs escaping.
constexpr const char* kTelegramBody =
    "{{what}}\n"
    "{{#description}}{{description}}\n{{/description}}"
    "Where: {{where}}\n"
    "Severity: {{severity}}{{^pushed}}, {{event_count}} events ({{count_text}}){{/pushed}}, last "
    "seen {{last_seen_at}}{{#resolved_at}}, resolved {{resolved_at}}{{/resolved_at}}\n"
    "{{#pushed}}Firing{{/pushed}}{{^pushed}}Failing{{/pushed}} since {{since}} ({{failing_for}})\n"
    "{{#runbook_url}}Runbook: {{runbook_url}}\n{{/runbook_url}}"
    "{{#source_url}}Source: {{source_url}}\n{{/source_url}}"
    "{{#opened_in_shadow}}Open since {{open_since}} ({{open_for}}); opened while the condition "
    "was in shadow mode\n{{/opened_in_shadow}}"
    "{{#held_behind}}Held behind {{held_behind}} since {{open_since}} ({{open_for}}); sent now "
    "that it has resolved\n{{/held_behind}}"
    "{{#has_changes}}Changed: {{changes}}\n{{/has_changes}}"
    "{{^pushed}}{{#has_examples}}{{#examples}}> {{text}}\n{{/examples}}{{/has_examples}}{{/pushed}}"
    "Next step: {{next_step}}"
    "{{#link}}\n{{link}}{{/link}}";
// Teams (Adaptive Card TextBlocks), Discord (an embed's description) and Mattermost all read
// CommonMark-style Markdown: **bold**, `code`, > quotes, [text](link). The channel puts the
// subject in its own place (the card's title, the message content, a bold first line).
constexpr const char* kMarkdownBody =
    "{{#is_resolve}}\xE2\x9C\x85{{/is_resolve}}{{^is_resolve}}\xF0\x9F\x9A\xA8{{/is_resolve}}"
    " **{{condition}}** {{transition_label}}: `{{key}}`\n"
    "**{{what}}**\n"
    "{{#description}}{{description}}\n{{/description}}"
    "**Where:** {{where}}\n"
    "**Severity:** {{severity}} \xC2\xB7 {{^pushed}}**Events:** {{event_count}} ({{count_text}}) "
    "\xC2\xB7 {{/pushed}}**Last seen:** {{last_seen_at}}{{#resolved_at}} \xC2\xB7 **Resolved:** "
    "{{resolved_at}}{{/resolved_at}}\n"
    "**{{#pushed}}Firing{{/pushed}}{{^pushed}}Failing{{/pushed}} since** {{since}} "
    "({{failing_for}})\n"
    "{{#runbook_url}}**Runbook:** [open the runbook]({{runbook_url}})\n{{/runbook_url}}"
    "{{#source_url}}**Source:** [open at the source]({{source_url}})\n{{/source_url}}"
    "{{#opened_in_shadow}}_Open since {{open_since}} ({{open_for}}); opened while the condition "
    "was in shadow mode_\n{{/opened_in_shadow}}"
    "{{#held_behind}}_Held behind `{{held_behind}}` since {{open_since}} ({{open_for}}); sent now "
    "that it has resolved_\n{{/held_behind}}"
    "{{#has_changes}}**Changed:** {{changes}}\n{{/has_changes}}"
    "{{^pushed}}{{#has_examples}}{{#examples}}> {{text}}\n{{/examples}}{{/has_examples}}{{/pushed}}"
    "**Next step:** {{next_step}}\n"
    "{{#link}}[Open in quell]({{link}}){{/link}}";

}  // namespace

std::optional<TemplatePair> DefaultTemplates(std::string_view channel_type) {
  if (channel_type == "email") return TemplatePair{kSummary, kEmailBody};
  if (channel_type == "slack") return TemplatePair{kSummary, kSlackBody};
  if (channel_type == "sms") return TemplatePair{kSummary, kSmsBody};
  if (channel_type == "pagerduty") return TemplatePair{kPagerDutySummary, kPagerDutyBody};
  if (channel_type == "webhook") return TemplatePair{kSummary, kWebhookBody};
  // Opsgenie: the one-line summary is the alert's message, the e-mail's plain text its
  // description (both cut to Opsgenie's limits by the renderer).
  if (channel_type == "opsgenie") return TemplatePair{kSummary, kEmailBody};
  if (channel_type == "google_chat") return TemplatePair{kSummary, kGoogleChatBody};
  if (channel_type == "ntfy") return TemplatePair{kSummary, kNtfyBody};
  if (channel_type == "telegram") return TemplatePair{kSummary, kTelegramBody};
  if (channel_type == "teams" || channel_type == "discord" || channel_type == "mattermost") {
    return TemplatePair{kSummary, kMarkdownBody};
  }
  return std::nullopt;
}

}  // namespace quell::templates
