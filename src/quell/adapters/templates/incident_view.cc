#include "quell/adapters/templates/incident_view.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <utility>

#include "quell/adapters/jsonl/message_codec.h"
#include "quell/core/delivery/message_limits.h"
#include "quell/core/text/time.h"
#include "quell/core/text/url.h"

namespace quell::templates {
namespace {

using Evidence = core::MessageEvidence;

bool IsDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// A metric condition's evidence in words: "error_rate 0.31 is above the threshold 0.2
// (recovers below 0.1)", or "was above" in a resolve (the evidence is the last unhealthy
// reading). Empty when `evidence` is not a metric's.
std::string MetricWords(const Evidence& evidence, bool past) {
  if (!evidence.is_metric) return {};
  std::string metric = evidence.metric;
  if (metric.empty()) metric = "the value";
  const std::string& threshold = evidence.threshold;
  const bool below = evidence.direction == "below";
  const std::string& value = evidence.value;
  if (value.empty()) return metric + " has no data (threshold " + threshold + ")";
  std::string words = metric + " " + value + (past ? " was " : " is ") +
                      (below ? "below" : "above") + " the threshold " + threshold;
  if (evidence.recovery) {
    words += std::string(" (recovers ") + (below ? "above " : "below ") + *evidence.recovery + ")";
  } else {
    words += std::string(" (recovers at ") + threshold + (below ? " or above)" : " or below)");
  }
  return words;
}

// A pushed alert's headline: its summary annotation, or Grafana's older "message".
std::string AlertSummary(const Evidence& alert) {
  std::string summary = core::OneLine(alert.summary);
  if (summary.empty()) summary = core::OneLine(alert.old_message);
  return summary;
}

IncidentView::Example MakeExample(const Evidence& evidence, size_t max_chars, bool past) {
  IncidentView::Example example;
  example.json = evidence.json;
  std::string text = MetricWords(evidence, past);
  if (!text.empty()) {
    // A metric's evidence reads as its sentence.
  } else if (evidence.is_alert) {
    // A pushed alert reads as its summary and description, not as its JSON.
    text = AlertSummary(evidence);
    const std::string detail = core::OneLine(evidence.description);
    if (!detail.empty() && detail != text) text = text.empty() ? detail : text + " - " + detail;
  } else if (evidence.is_object) {
    // The title names the group and repeats in every evidence of it; the event's own message
    // (or exception) is what tells one example from the next.
    text = evidence.title;
    std::string detail = evidence.message;
    // Sentry's culprit (where it fails) before its exception, which repeats the title.
    if (detail.empty()) detail = evidence.culprit;
    if (detail.empty()) detail = evidence.exception;
    if (!detail.empty() && detail != text) text = text.empty() ? detail : text + " - " + detail;
  } else {
    text = evidence.text;
  }
  if (text.empty()) text = example.json;
  example.text = core::CutToChars(core::OneLine(text), max_chars);
  return example;
}

// `text` in single quotes for a POSIX shell.
std::string ShellQuote(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::string SecondsBetween(const std::string& from, const std::string& to) {
  const auto a = core::ParseRfc3339(from);
  const auto b = core::ParseRfc3339(to);
  if (!a.ok() || !b.ok()) return {};
  return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(*b - *a).count());
}

// From an RFC 3339 time to `to`, for a person; empty when `from` is no time.
std::string SecondsUntil(const std::string& from, core::WallTime to) {
  const auto a = core::ParseRfc3339(from);
  if (!a.ok()) return {};
  return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(to - *a).count());
}

// The snapshot's labels; a snapshot written before incidents kept labels falls back on the
// newest evidence's tags, where an error group's tenant and agent stage are.
void ReadLabels(const core::IncidentSnapshot& doc, const Evidence* newest, IncidentView& view) {
  view.labels = doc.labels;
  if (view.labels.empty() && newest != nullptr) view.labels = newest->tags;
  std::sort(view.labels.begin(), view.labels.end());
  for (const auto& [name, value] : view.labels) {
    if (name == "tenant") view.tenant = value;
    if (name == "stage" || (name == "agent_stage" && view.stage.empty())) view.stage = value;
  }
  // Tenant and stage first, as on-call asks for them; the rest by name.
  std::vector<std::string> parts;
  if (!view.tenant.empty()) parts.push_back("tenant " + view.tenant);
  if (!view.stage.empty()) parts.push_back("stage " + view.stage);
  for (const auto& [name, value] : view.labels) {
    if (name != "tenant" && name != "stage" && name != "agent_stage" && name != "condition" &&
        !value.empty()) {
      std::string part = name;
      part += ' ';
      part += value;
      parts.push_back(std::move(part));
    }
  }
  for (const std::string& part : parts) {
    view.where += part;
    view.where += ", ";
  }
}

// A pushed alert's annotations and start (see IncidentView::pushed); `newest` may be another
// kind of evidence (a push condition fed quell's own observations), or none.
void ReadPushed(const core::IncidentSnapshot& doc, const Evidence* newest,
                const ViewOptions& options, IncidentView& view) {
  if (newest != nullptr && newest->is_alert) {
    view.summary = core::CutToChars(AlertSummary(*newest), options.max_description_chars);
    view.description =
        core::CutToChars(core::OneLine(newest->description), options.max_description_chars);
    if (view.description == view.summary) view.description.clear();
    view.runbook_url = LinkableUrl(newest->runbook_url);
    // Whole seconds: Prometheus' nanoseconds would make "5m" of 08:55:00.1 to 09:00 read "4m".
    if (auto starts = core::ParseRfc3339(newest->starts_at); starts) {
      view.starts_at = core::FormatRfc3339(std::chrono::floor<std::chrono::seconds>(*starts));
    }
  }
  // Without a startsAt in the newest evidence: the key's first sighting, which took the first
  // alert's startsAt when it was earlier than the push.
  if (view.starts_at.empty()) view.starts_at = doc.first_seen_at;
  if (!view.summary.empty()) {
    view.what = view.summary;
  } else if (!view.description.empty()) {
    view.what = view.description;
  } else if (view.what.empty()) {
    for (const auto& [name, value] : view.labels) {
      if (name == "alertname" && !value.empty()) view.what = value;
    }
  }
}

void FillCounts(const core::IncidentSnapshot& doc, const Evidence* newest, IncidentView& view) {
  view.polls = view.event_count;
  if (view.pushed) {
    // A push is no poll of quell's: what on-call wants is since when it has been firing.
    const std::string since = MinuteText(view.starts_at);
    if (since.empty()) {
      view.count_text =
          "pushed " + std::to_string(view.polls) + (view.polls == 1 ? " time" : " times");
    } else {
      view.count_text =
          (view.transition == "resolve" ? "was firing since " : "firing since ") + since;
    }
    return;
  }
  view.upstream_count = doc.upstream_count;
  if (view.upstream_count.empty() && newest != nullptr) view.upstream_count = newest->count;
  if (!IsDigits(view.upstream_count)) view.upstream_count.clear();
  view.upstream_since_last = doc.upstream_count_since_last_message;
  if (!IsDigits(view.upstream_since_last)) view.upstream_since_last.clear();
  if (view.upstream_count.empty()) {
    view.count_text = "failing in " + std::to_string(view.polls) +
                      (view.polls == 1 ? " poll" : " polls") + " of quell's";
    return;
  }
  view.event_count = std::stoull(view.upstream_count);
  view.count_text = view.upstream_count + " errors upstream";
  if (!view.upstream_since_last.empty() && view.transition != "open") {
    view.count_text += ", " + view.upstream_since_last + " since the last message";
  }
}

void FillChanges(const std::vector<IncidentView::Example>& newest_two, IncidentView& view) {
  if (view.transition != "renotify") return;
  std::vector<std::string> parts;
  if (!view.upstream_since_last.empty()) {
    parts.push_back(view.upstream_since_last == "0"
                        ? std::string("no new errors upstream since the last message")
                        : view.upstream_since_last +
                              " more errors upstream since the last message");
  }
  if (newest_two.size() == 2 && newest_two[0].text != newest_two[1].text) {
    parts.push_back("new example: " + newest_two[0].text);
  }
  for (size_t i = 0; i < parts.size(); ++i) view.changes += (i > 0 ? "; " : "") + parts[i];
}

void FillNextStep(const ViewOptions& options, IncidentView& view) {
  const std::string key = ShellQuote(view.key);
  view.ack_command = "quell incidents ack " + key;
  // --key: the key exactly; as a PATTERN a key holding `*` would silence other keys too.
  view.silence_command =
      "quell silence add --key " + key + " --for 1h --reason " + ShellQuote("on it");
  if (!options.public_url.empty()) {
    view.ack_url =
        "POST " + options.public_url + "/v1/incidents/" + core::UrlEncode(view.key) + "/ack";
  }
  if (view.transition == "resolve") {
    view.next_step = "none: it recovered";
    return;
  }
  if (options.ack_link) {
    if (auto issued = core::ParseRfc3339(view.polled_at); issued) {
      view.ack_link = options.ack_link(view.key, view.generation, *issued);
    }
  }
  view.next_step =
      "ack with `" + view.ack_command + "` or silence with `" + view.silence_command + "`";
  if (!view.ack_url.empty()) view.next_step += " (HTTP: " + view.ack_url + ")";
  if (!view.ack_link.empty()) view.next_step += "; or ack in one click: " + view.ack_link;
}

}  // namespace

std::string MinuteText(const std::string& rfc3339) {
  if (rfc3339.size() < 16 || rfc3339[10] != 'T' || !rfc3339.ends_with('Z')) return rfc3339;
  return rfc3339.substr(0, 10) + " " + rfc3339.substr(11, 5) + " UTC";
}

std::string LinkableUrl(std::string_view url) {
  constexpr size_t kMaxUrlBytes = 2048;
  while (!url.empty() && (url.front() == ' ' || url.front() == '\t')) url.remove_prefix(1);
  while (!url.empty() && (url.back() == ' ' || url.back() == '\t')) url.remove_suffix(1);
  const auto lower_starts = [url](std::string_view prefix) {
    if (url.size() <= prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(url[i])) != prefix[i]) return false;
    }
    return true;
  };
  if (url.size() > kMaxUrlBytes || !(lower_starts("http://") || lower_starts("https://"))) {
    return {};
  }
  // Blanks, controls, non-ASCII bytes and the characters that would end a Slack or Markdown link.
  std::string out = core::PercentEncode(url, [](unsigned char c) {
    return c > 0x20 && c < 0x7f &&
           std::string_view("\"<>|()[]{}\\^`").find(static_cast<char>(c)) == std::string_view::npos;
  });
  // "https://" alone, or followed by a path only, names no host.
  const size_t host = out.find("://") + 3;
  if (host >= out.size() || out[host] == '/' || out[host] == '?' || out[host] == '#') return {};
  return out;
}

std::string SeverityOfLevel(std::string_view level) {
  if (level == "fatal" || level == "critical" || level == "error" || level == "info") {
    return std::string(level);
  }
  if (level == "warning" || level == "warn") return "warning";
  if (level == "debug" || level == "trace" || level == "log" || level == "sample") return "info";
  return {};
}

std::string HumanDuration(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  const int64_t days = seconds / 86400;
  const int64_t hours = seconds % 86400 / 3600;
  const int64_t minutes = seconds % 3600 / 60;
  if (days > 0) return std::to_string(days) + "d " + std::to_string(hours) + "h";
  if (hours > 0) return std::to_string(hours) + "h " + std::to_string(minutes) + "m";
  if (minutes > 0) return std::to_string(minutes) + "m";
  return std::to_string(seconds) + "s";
}

core::Result<IncidentView> ParseIncidentView(std::string_view payload, const ViewOptions& options,
                                             std::optional<core::WallTime> sent_at) {
  core::Result<core::IncidentSnapshot> snapshot = jsonl::DecodeSnapshot(payload);
  if (!snapshot) return snapshot.error();
  return IncidentViewOf(*snapshot, options, sent_at);
}

IncidentView IncidentViewOf(const core::IncidentSnapshot& doc, const ViewOptions& options,
                            std::optional<core::WallTime> sent_at) {
  IncidentView view;
  view.key = doc.key;
  view.condition = doc.condition;
  view.status = doc.status;
  view.transition = doc.transition;
  view.generation = doc.generation.value_or(0);
  view.version = doc.version.value_or(0);
  view.opened_at = doc.opened_at;
  view.first_seen_at = doc.first_seen_at;
  view.last_seen_at = doc.last_seen_at;
  view.resolved_at = doc.resolved_at;
  view.event_count = doc.event_count.value_or(0);
  view.opened_in_shadow = doc.opened_in_shadow;
  view.held_behind = doc.held_behind;
  if (view.opened_in_shadow || !view.held_behind.empty()) {
    view.open_for = HumanDuration(static_cast<int64_t>(doc.open_for_seconds));
    view.open_since = MinuteText(view.opened_at);
  }
  // The store appends evidence, so the newest is last; a message shows it first.
  std::vector<const Evidence*> evidence;
  evidence.reserve(doc.evidence.size());
  for (auto e = doc.evidence.rbegin(); e != doc.evidence.rend(); ++e) evidence.push_back(&*e);
  const Evidence* newest = evidence.empty() ? nullptr : evidence.front();
  if (const auto it = options.condition_severity.find(view.condition);
      it != options.condition_severity.end()) {
    view.severity = it->second;
  } else {
    view.severity = doc.severity;
    if (view.severity.empty() && newest != nullptr) view.severity = SeverityOfLevel(newest->level);
    if (view.severity.empty()) {
      // A pushed alert states its severity as a label (Prometheus' and Grafana's convention).
      for (const auto& [name, value] : doc.labels) {
        if (name == "severity") view.severity = SeverityOfLevel(value);
      }
    }
    if (view.severity.empty()) view.severity = options.default_severity;
  }
  view.polled_at = view.last_seen_at;
  for (const Evidence* e : evidence) {
    if (!e->last_seen.empty()) {
      view.last_seen_at = e->last_seen;
      break;
    }
  }
  std::vector<IncidentView::Example> newest_two;
  for (const Evidence* e : evidence) {
    IncidentView::Example example =
        MakeExample(*e, options.max_example_chars, view.transition == "resolve");
    if (newest_two.size() < 2) newest_two.push_back(example);
    if (view.examples.size() >= options.max_examples) continue;
    const bool seen = std::any_of(view.examples.begin(), view.examples.end(),
                                  [&](const auto& x) { return x.text == example.text; });
    if (!seen) view.examples.push_back(std::move(example));
  }
  if (newest != nullptr && newest->is_object) {
    view.what = MetricWords(*newest, view.transition == "resolve");
    if (view.what.empty()) view.what = core::OneLine(newest->title);
    // Where to see it at its source: an error's permalink (Sentry); a pushed alert's panel,
    // else its dashboard (Grafana), else the rule's graph (generatorURL).
    for (const std::string* url :
         {&newest->permalink, &newest->panel_url, &newest->dashboard_url, &newest->generator_url}) {
      view.source_url = LinkableUrl(*url);
      if (!view.source_url.empty()) break;
    }
  }
  ReadLabels(doc, newest, view);
  view.pushed =
      options.push_conditions.contains(view.condition) || (newest != nullptr && newest->is_alert);
  if (view.pushed) ReadPushed(doc, newest, options, view);
  if (view.what.empty()) view.what = view.condition + " failing for " + view.key;
  view.where += "condition " + view.condition;
  FillCounts(doc, newest, view);
  FillChanges(newest_two, view);
  // A poll's failure counts from quell's open (an error group may be months old); a pushed
  // alert from its own start, which its source knows better than quell's receipt of it.
  std::string start = view.opened_at.empty() ? view.first_seen_at : view.opened_at;
  if (view.pushed && !view.starts_at.empty()) start = view.starts_at;
  view.since = MinuteText(start);
  const bool ended = view.transition == "resolve" && !view.resolved_at.empty();
  view.failing_for = ended     ? SecondsBetween(start, view.resolved_at)
                     : sent_at ? SecondsUntil(start, *sent_at)
                               : SecondsBetween(start, view.polled_at);
  if (sent_at && !view.open_for.empty()) {
    if (const std::string open_for = SecondsUntil(view.opened_at, *sent_at); !open_for.empty()) {
      view.open_for = open_for;
    }
  }
  FillNextStep(options, view);
  if (!options.link_base_url.empty()) {
    view.link = options.link_base_url + core::UrlEncode(view.key);
  } else if (!options.public_url.empty()) {
    view.link = options.public_url + "/incidents/" + core::UrlEncode(view.key);
  }
  return view;
}

}  // namespace quell::templates
