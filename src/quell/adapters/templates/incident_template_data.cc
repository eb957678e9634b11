#include "quell/adapters/templates/incident_template_data.h"

#include <cctype>

#include "quell/adapters/templates/slack_text.h"

namespace quell::templates {
namespace {

// IncidentContextNames' order.
enum class Field : size_t {
  kKey,
  kCondition,
  kSeverity,
  kSeverityUpper,
  kStatus,
  kTransition,
  kTransitionLabel,
  kGeneration,
  kVersion,
  kOpenedAt,
  kFirstSeenAt,
  kLastSeenAt,
  kResolvedAt,
  kEventCount,
  kExamples,
  kHasExamples,
  kLink,
  kIsOpen,
  kIsRenotify,
  kIsResolve,
  kOpenedInShadow,
  kOpenFor,
  kOpenSince,
  kHeldBehind,
  kWhat,
  kWhere,
  kLabels,
  kTenant,
  kStage,
  kSince,
  kFailingFor,
  kPolledAt,
  kPolls,
  kUpstreamCount,
  kUpstreamSinceLast,
  kCountText,
  kChanges,
  kHasChanges,
  kAckCommand,
  kSilenceCommand,
  kAckUrl,
  kAckLink,
  kNextStep,
  kPushed,
  kAlertSummary,
  kDescription,
  kRunbookUrl,
  kStartsAt,
  kSourceUrl,
  // Item names: an example's and a label's.
  kText,
  kJson,
  kName,
  kValue,
};

std::string_view TransitionWords(std::string_view transition) {
  if (transition == "open") return "opened";
  if (transition == "renotify") return "still failing";
  if (transition == "resolve") return "resolved";
  return "changed";
}

TemplateValue Plain(std::string_view text) {
  TemplateValue v;
  v.kind = TemplateValue::Kind::kString;
  v.text = text;
  return v;
}

TemplateValue Flag(bool flag) {
  TemplateValue v;
  v.kind = TemplateValue::Kind::kBool;
  v.flag = flag;
  return v;
}

TemplateValue List(size_t items) {
  TemplateValue v;
  v.kind = TemplateValue::Kind::kList;
  v.items = items;
  return v;
}

}  // namespace

const std::vector<std::string_view>& IncidentContextNames() {
  static const std::vector<std::string_view> kNames = {"key",
                                                       "condition",
                                                       "severity",
                                                       "severity_upper",
                                                       "status",
                                                       "transition",
                                                       "transition_label",
                                                       "generation",
                                                       "version",
                                                       "opened_at",
                                                       "first_seen_at",
                                                       "last_seen_at",
                                                       "resolved_at",
                                                       "event_count",
                                                       "examples",
                                                       "has_examples",
                                                       "link",
                                                       "is_open",
                                                       "is_renotify",
                                                       "is_resolve",
                                                       "opened_in_shadow",
                                                       "open_for",
                                                       "open_since",
                                                       "held_behind",
                                                       "what",
                                                       "where",
                                                       "labels",
                                                       "tenant",
                                                       "stage",
                                                       "since",
                                                       "failing_for",
                                                       "polled_at",
                                                       "polls",
                                                       "upstream_count",
                                                       "upstream_since_last",
                                                       "count_text",
                                                       "changes",
                                                       "has_changes",
                                                       "ack_command",
                                                       "silence_command",
                                                       "ack_url",
                                                       "ack_link",
                                                       "next_step",
                                                       "pushed",
                                                       "summary",
                                                       "description",
                                                       "runbook_url",
                                                       "starts_at",
                                                       "source_url",
                                                       "text",
                                                       "json",
                                                       "name",
                                                       "value"};
  return kNames;
}

IncidentTemplateData::IncidentTemplateData(const IncidentView& view, bool slack)
    : view_(view),
      slack_(slack),
      // A resolve says so where the severity stands ("RESOLVED new_errors resolved: ..."); the
      // message's severity itself stays the level, for pacing rules such as SMS quiet hours.
      severity_upper_(view.transition == "resolve" ? "resolved" : view.severity),
      generation_(std::to_string(view.generation)),
      version_(std::to_string(view.version)),
      event_count_(std::to_string(view.event_count)),
      polls_(std::to_string(view.polls)) {
  for (char& c : severity_upper_)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
}

TemplateValue IncidentTemplateData::Text(std::string_view text) const {
  TemplateValue v = Plain(text);
  v.escape = slack_;
  return v;
}

void IncidentTemplateData::AppendEscaped(std::string& out, std::string_view text) const {
  // Slack reads &, < and > as control characters (links, mentions): SlackEscape's entities.
  AppendSlackEscaped(out, text);
}

TemplateValue IncidentTemplateData::Root(size_t id) const {
  const IncidentView& v = view_;
  switch (static_cast<Field>(id)) {
    case Field::kKey:
      return Text(v.key);
    case Field::kCondition:
      return Text(v.condition);
    case Field::kSeverity:
      return Text(v.severity);
    case Field::kSeverityUpper:
      return Text(severity_upper_);
    case Field::kStatus:
      return Text(v.status);
    case Field::kTransition:
      return Text(v.transition);
    case Field::kTransitionLabel:
      return Plain(TransitionWords(v.transition));
    case Field::kGeneration:
      return Plain(generation_);
    case Field::kVersion:
      return Plain(version_);
    case Field::kOpenedAt:
      return Plain(v.opened_at);
    case Field::kFirstSeenAt:
      return Plain(v.first_seen_at);
    case Field::kLastSeenAt:
      return Plain(v.last_seen_at);
    case Field::kResolvedAt:
      return Plain(v.resolved_at);
    case Field::kEventCount:
      return Plain(event_count_);
    case Field::kExamples:
      return List(v.examples.size());
    case Field::kHasExamples:
      return Flag(!v.examples.empty());
    case Field::kLink:
      return Plain(v.link);  // the key in it is percent-encoded
    case Field::kIsOpen:
      return Flag(v.transition == "open");
    case Field::kIsRenotify:
      return Flag(v.transition == "renotify");
    case Field::kIsResolve:
      return Flag(v.transition == "resolve");
    case Field::kOpenedInShadow:
      return Flag(v.opened_in_shadow);
    case Field::kOpenFor:
      return Plain(v.open_for);
    case Field::kOpenSince:
      return Plain(v.open_since);
    case Field::kHeldBehind:
      return Text(v.held_behind);
    case Field::kWhat:
      return Text(v.what);
    case Field::kWhere:
      return Text(v.where);
    case Field::kLabels:
      return List(v.labels.size());
    case Field::kTenant:
      return Text(v.tenant);
    case Field::kStage:
      return Text(v.stage);
    case Field::kSince:
      return Plain(v.since);
    case Field::kFailingFor:
      return Plain(v.failing_for);
    case Field::kPolledAt:
      return Plain(v.polled_at);
    case Field::kPolls:
      return Plain(polls_);
    case Field::kUpstreamCount:
      return Plain(v.upstream_count);
    case Field::kUpstreamSinceLast:
      return Plain(v.upstream_since_last);
    case Field::kCountText:
      return Plain(v.count_text);
    case Field::kChanges:
      return Text(v.changes);
    case Field::kHasChanges:
      return Flag(!v.changes.empty());
    case Field::kAckCommand:
      return Text(v.ack_command);
    case Field::kSilenceCommand:
      return Text(v.silence_command);
    case Field::kAckUrl:
      return Plain(v.ack_url);
    case Field::kAckLink:
      return Plain(v.ack_link);
    case Field::kNextStep:
      return Text(v.next_step);
    case Field::kPushed:
      return Flag(v.pushed);
    case Field::kAlertSummary:
      return Text(v.summary);
    case Field::kDescription:
      return Text(v.description);
    case Field::kRunbookUrl:
      return Text(v.runbook_url);  // "&" is "&amp;" in a Slack link too
    case Field::kStartsAt:
      return Plain(v.starts_at);
    case Field::kSourceUrl:
      return Text(v.source_url);
    case Field::kText:
    case Field::kJson:
    case Field::kName:
    case Field::kValue:
      break;  // an item's, not the root's
  }
  return {};
}

TemplateValue IncidentTemplateData::Item(size_t list, size_t index, size_t id) const {
  const auto field = static_cast<Field>(id);
  if (static_cast<Field>(list) == Field::kExamples) {
    const IncidentView::Example& example = view_.examples[index];
    if (field == Field::kText) return Text(example.text);
    if (field == Field::kJson) return Text(example.json);
  } else if (static_cast<Field>(list) == Field::kLabels) {
    const auto& [name, value] = view_.labels[index];
    if (field == Field::kName) return Text(name);
    if (field == Field::kValue) return Text(value);
  }
  return {};
}

}  // namespace quell::templates
