#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/ports/message.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::templates {

// The fields a template sees, read from an outbox payload (the JSON incident snapshot).
struct IncidentView {
  std::string key;
  std::string condition;
  std::string severity;
  std::string status;      // "open" or "resolved"
  std::string transition;  // "open", "renotify" or "resolve"
  uint64_t generation = 0;
  uint64_t version = 0;
  std::string opened_at;  // RFC 3339, or empty
  std::string first_seen_at;
  // When the error was last seen at its source (the newest evidence's "last_seen"), else when
  // quell last saw it failing (the snapshot's own last_seen_at, a poll time: polled_at).
  std::string last_seen_at;
  std::string polled_at;
  std::string resolved_at;
  // The source's own count of events (upstream_count, else the newest evidence's "count"),
  // else quell's count of unhealthy polls; `polls` is always the latter.
  uint64_t event_count = 0;
  uint64_t polls = 0;
  std::string upstream_count;       // digits; empty when the source gave none (a metric)
  std::string upstream_since_last;  // digits; empty when unknown
  std::string count_text;  // "12 errors upstream, 3 since the last message" / "seen in 4 polls"
  // What is failing, in words: the error group's title, or "error_rate 0.31 is above the
  // threshold 0.2 (recovers below 0.1)"; the condition and key when the evidence says neither.
  std::string what;
  // Where: "tenant t1, stage prod, condition model-answer" from the labels and the condition.
  std::string where;
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by name
  std::string tenant;                                       // labels["tenant"], or empty
  std::string stage;                                        // labels["stage"], or empty
  std::string since;        // "2026-12-02 09:00 UTC": opened_at, else first_seen_at
  std::string failing_for;  // "2h 13m": since -> resolved_at (a resolve) or the last poll
  // A renotify: what changed since the last message ("3 more errors upstream since the last
  // message; new example: ..."); empty otherwise or when nothing is known to have changed.
  std::string changes;
  // The next step, for a person: the commands that ack and silence this key, and the HTTP
  // route when a public URL is configured.
  std::string ack_command;      // quell incidents ack 'KEY'
  std::string silence_command;  // quell silence add --key 'KEY' --for 1h --reason '...'
  std::string ack_url;          // POST <public_url>/v1/incidents/<key>/ack, or empty
  // A signed link that acks this generation in one click (GET asks, POST acks), when ack links
  // are configured; empty on a resolve and without a transition time to date it from.
  std::string ack_link;
  std::string next_step;  // the above in one sentence; "none: it recovered" on a resolve
  struct Example {
    std::string text;  // the evidence's title and message, one line
    std::string json;  // the whole evidence object, compact
  };
  std::vector<Example> examples;  // the most recent first, no two with the same text
  std::string link;               // empty without a base URL
  // The failing thing's own page at its source (a Sentry issue's permalink: the newest
  // evidence's "permalink"), linkable as LinkableUrl makes it; empty when none was sent.
  std::string source_url;
  // A pushed alert (the newest evidence is an Alertmanager or Grafana alert's, holding its
  // "annotations"; or the condition is a push condition): its annotations as people read them.
  // `summary` is also `what`; `description` one line, cut, and empty when it repeats the
  // summary; `runbook_url` only an absolute http(s) URL, with the characters that would end a
  // link in Slack or Markdown percent-encoded. `since` and `failing_for` count from the alert's
  // startsAt (`starts_at`, RFC 3339 UTC), and count_text says "firing since ...".
  bool pushed = false;
  std::string summary;
  std::string description;
  std::string runbook_url;
  std::string starts_at;
  // An open announced when its condition left shadow mode: true, with how long it had been
  // open then ("2h 13m") and since when ("2026-12-02 09:00 UTC").
  bool opened_in_shadow = false;
  std::string open_for;
  std::string open_since;
  // An open held back while another open incident inhibited it, announced when that one let
  // go: the holder's key; open_for and open_since are set as for a late open.
  std::string held_behind;
};

struct ViewOptions {
  // The link is link_base_url + the percent-encoded key when set (dispatch.link_base, kept as
  // it was); else public_url + "/incidents/" + the percent-encoded key (http.public_url: the
  // incident's page, which quell serves; docs/page.md); no link without either.
  std::string link_base_url;
  std::string public_url;
  std::string default_severity = "error";
  std::map<std::string, std::string, std::less<>> condition_severity;  // by condition name
  // The signed ack link of (key, generation) issued at the transition's time (the snapshot's
  // last_seen_at); unset: messages carry none (http.ack_link_secret not configured).
  std::function<std::string(std::string_view key, uint64_t generation, core::WallTime issued_at)>
      ack_link;
  // The signed link acking the open members of (channel, group key)'s episode, issued at the
  // newest member's transition; unset: group messages carry none.
  std::function<std::string(std::string_view channel, std::string_view group_key, uint64_t episode,
                            core::WallTime issued_at)>
      group_ack_link;
  size_t max_examples = 3;
  size_t max_example_chars = 200;
  size_t max_description_chars = 1000;
  // The push conditions' names (config `type: push`): their incidents read as pushed alerts
  // whatever their evidence holds (POST /v1/observations carries any).
  std::set<std::string, std::less<>> push_conditions;
};

// "45s", "13m", "2h 13m", "3d 4h": the two largest units, for a person reading a message.
std::string HumanDuration(int64_t seconds);

// The view of a snapshot (read once by jsonl::DecodeMessage). The severity is
// condition_severity[condition], else the payload's "severity", else the newest evidence's
// source level, else the "severity" label (a pushed alert's; both through SeverityOfLevel),
// else the default. With `sent_at` (the time the message goes out), the time phrases of an
// incident still open count to it: failing_for, and open_for of a late or held open; without
// it, to the snapshot's own time (the poll that wrote it). A resolve's failing_for counts to
// resolved_at either way.
IncidentView IncidentViewOf(const core::IncidentSnapshot& doc, const ViewOptions& options,
                            std::optional<core::WallTime> sent_at = std::nullopt);
// The same from a payload's text (config checks, tests); kInvalidArgument when it is not a JSON
// object with a string "key".
core::Result<IncidentView> ParseIncidentView(std::string_view payload, const ViewOptions& options,
                                             std::optional<core::WallTime> sent_at = std::nullopt);

// A source's level as a severity: fatal stays fatal, "warn" is warning, debug and the like are
// info; empty for a word that names no level.
std::string SeverityOfLevel(std::string_view level);

// "2026-12-02T09:00:00Z" -> "2026-12-02 09:00 UTC"; anything else as it is.
std::string MinuteText(const std::string& rfc3339);

// `url` when it is an absolute http(s) URL (surrounding blanks trimmed, at most 2048 bytes),
// with blanks, controls, non-ASCII bytes and any of "<>|()[]{}\^` percent-encoded, so it can
// stand in a Slack <url|text> or a Markdown [text](url) link; empty otherwise.
std::string LinkableUrl(std::string_view url);

}  // namespace quell::templates
