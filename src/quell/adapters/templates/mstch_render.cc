#include "quell/adapters/templates/mstch_render.h"

#include <cctype>
#include <exception>
#include <mstch/mstch.hpp>
#include <mutex>

#include "quell/adapters/templates/slack_text.h"

namespace quell::templates {
namespace {

using core::ErrorCode;
using core::MakeError;

// mstch escapes {{name}} for HTML through one global function; plain text, mrkdwn and JSON
// bodies must not see "&amp;", so it is made the identity once, before any render.
void DisableHtmlEscaping() {
  static std::once_flag once;
  std::call_once(once, [] { mstch::config::escape = [](const std::string& s) { return s; }; });
}

const char* TransitionLabel(std::string_view transition) {
  if (transition == "open") return "opened";
  if (transition == "renotify") return "still failing";
  if (transition == "resolve") return "resolved";
  return "changed";
}

std::string UpperCase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

mstch::map MakeContext(const IncidentView& view, bool slack) {
  const auto text = [slack](std::string_view s) -> mstch::node {
    return slack ? SlackEscape(s) : std::string(s);
  };
  mstch::array examples;
  for (const IncidentView::Example& example : view.examples) {
    examples.emplace_back(mstch::map{{"text", text(example.text)}, {"json", text(example.json)}});
  }
  mstch::array labels;
  for (const auto& [name, value] : view.labels) {
    labels.emplace_back(mstch::map{{"name", text(name)}, {"value", text(value)}});
  }
  // A resolve says so where the severity stands ("RESOLVED new_errors resolved: ..."); the
  // message's severity itself stays the level, for pacing rules such as SMS quiet hours.
  const std::string severity_word = view.transition == "resolve" ? "resolved" : view.severity;
  return mstch::map{
      {"key", text(view.key)},
      {"condition", text(view.condition)},
      {"severity", text(view.severity)},
      {"severity_upper", text(UpperCase(severity_word))},
      {"status", text(view.status)},
      {"transition", text(view.transition)},
      {"transition_label", std::string(TransitionLabel(view.transition))},
      {"generation", std::to_string(view.generation)},
      {"version", std::to_string(view.version)},
      {"opened_at", view.opened_at},
      {"first_seen_at", view.first_seen_at},
      {"last_seen_at", view.last_seen_at},
      {"resolved_at", view.resolved_at},
      {"event_count", std::to_string(view.event_count)},
      {"examples", std::move(examples)},
      {"has_examples", !view.examples.empty()},
      {"link", view.link},  // the key in it is percent-encoded: nothing for Slack to escape
      {"is_open", view.transition == "open"},
      {"is_renotify", view.transition == "renotify"},
      {"is_resolve", view.transition == "resolve"},
      {"opened_in_shadow", view.opened_in_shadow},
      {"open_for", view.open_for},
      {"open_since", view.open_since},
      {"held_behind", text(view.held_behind)},
      {"what", text(view.what)},
      {"where", text(view.where)},
      {"labels", std::move(labels)},
      {"tenant", text(view.tenant)},
      {"stage", text(view.stage)},
      {"since", view.since},
      {"failing_for", view.failing_for},
      {"polled_at", view.polled_at},
      {"polls", std::to_string(view.polls)},
      {"upstream_count", view.upstream_count},
      {"upstream_since_last", view.upstream_since_last},
      {"count_text", view.count_text},
      {"changes", text(view.changes)},
      {"has_changes", !view.changes.empty()},
      {"ack_command", text(view.ack_command)},
      {"silence_command", text(view.silence_command)},
      {"ack_url", view.ack_url},
      {"ack_link", view.ack_link},
      {"next_step", text(view.next_step)},
      {"pushed", view.pushed},
      {"summary", text(view.summary)},
      {"description", text(view.description)},
      {"runbook_url", text(view.runbook_url)},  // "&" is "&amp;" in a Slack link too
      {"starts_at", view.starts_at},
      {"source_url", text(view.source_url)},
  };
}

core::Result<std::string> RenderOne(const std::string& text, const mstch::map& context,
                                    const char* which) {
  try {
    return mstch::render(text, context);
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kInvalidArgument,
                     std::string(which) + " template cannot be rendered: " + e.what());
  }
}

}  // namespace

core::Result<std::string> RenderWithMstch(const std::string& text, const IncidentView& view,
                                          bool slack, const char* which) {
  DisableHtmlEscaping();
  return RenderOne(text, MakeContext(view, slack), which);
}

}  // namespace quell::templates
