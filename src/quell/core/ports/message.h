#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace quell::core {

// The typed form of an outbox row's payload, read once per claimed row by the dispatcher
// (MessageRenderer::Decode) and handed to the renderer and the channel, so neither reads the
// stored JSON again. The stored text stays what the row is (a retried send, or a row written by
// an older quell, decodes the same way); this is only its reading. Strings are empty and
// numbers 0 where the payload had no such field (or one of another type).

// One evidence item of a snapshot (core/engine/evidence.h builds them; pushed alerts carry the
// alert's fields), with the fields messages read taken out.
struct MessageEvidence {
  std::string json;  // the item itself, compact with its keys sorted: what a message quotes
  bool is_object = false;
  std::string text;  // a string item's text
  // An object's string fields (count also from a number's digits).
  std::string title;
  std::string message;
  std::string culprit;
  std::string exception;
  std::string level;
  std::string last_seen;
  std::string count;
  std::string permalink;
  std::string panel_url;                                  // "panelURL"
  std::string dashboard_url;                              // "dashboardURL"
  std::string generator_url;                              // "generatorURL"
  std::string starts_at;                                  // "startsAt"
  std::vector<std::pair<std::string, std::string>> tags;  // its "tags" object's strings, sorted
  // A metric reading: it has "threshold" and "value"; numbers as words ("0.31", "12"), value
  // empty when it is not a number (no data); recovery unset without a numeric "recovery".
  bool is_metric = false;
  std::string metric;
  std::string direction;
  std::string value;
  std::string threshold;
  std::optional<std::string> recovery;
  // A pushed alert's (inputs/alertmanager_payload.h): an object without "title", with an
  // "annotations" object and a string "status"; the annotations messages read.
  bool is_alert = false;
  std::string summary;      // annotations.summary
  std::string old_message;  // annotations.message (Grafana's older summary)
  std::string description;  // annotations.description
  std::string runbook_url;  // annotations.runbook_url
};

// An incident snapshot at a transition (adapters/jsonl/payload_encoder writes it).
struct IncidentSnapshot {
  std::string key;
  std::string condition;
  std::string status;
  std::string transition;
  std::optional<uint64_t> generation;  // unset only in a payload without it
  std::optional<uint64_t> version;
  std::string opened_at;  // RFC 3339 as stored
  std::string first_seen_at;
  std::string last_seen_at;
  std::string resolved_at;
  std::optional<uint64_t> event_count;
  std::string severity;  // a payload's own severity (quell writes none now; older rows might)
  bool has_labels = false;
  std::vector<std::pair<std::string, std::string>> labels;  // string values, sorted by name
  std::string upstream_count;  // digits, or the stored string (an older row's, quoted)
  std::string upstream_count_since_last_message;
  bool upstream_count_quoted = false;
  bool since_last_message_quoted = false;
  // Which of these the payload had, so that "condition":"" prints back as it was stored.
  bool has_condition = false;
  bool has_status = false;
  bool has_transition = false;
  bool has_evidence = false;
  std::vector<MessageEvidence> evidence;  // as stored: the oldest first
  // An open announced late (shadow left, a maintenance window or an inhibitor let go).
  bool opened_in_shadow = false;
  std::string opened_in_maintenance;  // the window's name
  std::string held_behind;            // the inhibitor's key
  std::string announced_at;
  bool has_open_for = false;
  uint64_t open_for_seconds = 0;
};

// A group message (core/delivery/grouping.h: MakeGroupRow's payload, completed by GroupPayload
// with the counts, the standing at send time and the member snapshots).
struct GroupSnapshot {
  std::string key;
  std::string channel;
  std::optional<uint64_t> sequence;
  std::optional<uint64_t> episode;
  std::optional<uint64_t> open_after;
  bool has_labels = false;
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by name
  bool has_counts = false;
  std::vector<std::pair<std::string, uint64_t>> counts;  // members, open, renotify, resolve
  struct Standing {
    uint64_t open = 0;
    uint64_t silenced = 0;
  };
  std::optional<Standing> standing;
  std::vector<IncidentSnapshot> members;  // in commit order
};

struct Message {
  enum class Kind : uint8_t { kIncident, kGroup, kDigest, kDeadLetter };
  Kind kind = Kind::kIncident;
  IncidentSnapshot incident;  // kIncident
  GroupSnapshot group;        // kGroup
  // kDigest and kDeadLetter: the payload's one member ("digest" or "dead_letter") and its value,
  // compact with sorted keys, for channels that send the notice as structured data.
  std::string notice_name;
  std::string notice_json;
};

}  // namespace quell::core
