#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/app/incident_timeline.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/silence.h"
#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/operator_store.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"

namespace quell::app {

using core::IncidentStatusFilter;

// The list's filters, order and window, as the store reads them (core/ports/incident_page.h).
using IncidentFilter = core::IncidentPageQuery;

// One incident of the list with what the page shows beside it.
struct IncidentListItem {
  core::Incident incident;
  // The condition's configured severity, else the newest evidence item's level, else the
  // "severity" label (a pushed alert's), else "".
  std::string severity;
  // Outbox rows of the current generation that went out: sent, or grouped into a group message
  // that was sent.
  uint64_t notifications_sent = 0;
};

struct IncidentList {
  uint64_t total = 0;  // matching the filters, before offset and limit
  std::vector<IncidentListItem> incidents;
};

// A condition's configured `severity:` by condition name (config::Config::condition_severity).
using ConditionSeverities = std::map<std::string, std::string, std::less<>>;

struct OutboxFilter {
  std::optional<core::OutboxStatus> status;
  std::string channel;          // empty: every channel
  std::optional<size_t> limit;  // the first N in (key, channel, generation, version) order
};

// One incident with its recent history, newest first.
struct IncidentDetail {
  core::Incident incident;
  std::string severity;             // as IncidentListItem's
  uint64_t notifications_sent = 0;  // as IncidentListItem's
  std::vector<core::LoggedDecision> decisions;
  std::vector<core::OutboxRow> outbox;  // with group_row: the group message that took a row
  // The group messages that took its grouped rows (OperatorStore::GroupMessagesOf).
  std::vector<core::OutboxRow> group_messages;
};

// A group of a grouped channel (core/delivery/grouping.h) as its page shows it: the incidents
// its messages carried, open ones first (then by key), and its messages, newest first.
struct GroupDetail {
  std::string channel;
  std::string group_key;
  std::vector<std::pair<std::string, std::string>> labels;  // the group key's, in its order
  std::vector<IncidentListItem> members;
  uint64_t open = 0;                      // members open now
  std::vector<core::OutboxRow> messages;  // payloads left out (each holds every member)
};

inline constexpr size_t kDefaultGroupMembers = 500;  // members and messages a group lists

// A silence not yet saved, and what it would select now: the open incidents it matches, so the
// page shows what a glob silences before the operator saves it.
struct SilencePreviewQuery {
  core::SilenceMatch match = core::SilenceMatch::kGlob;
  std::string pattern;  // the key (kExact) or the glob (kGlob)
  size_t limit = 0;     // keys listed at most
};
struct SilencePreview {
  uint64_t matched = 0;           // open incidents it matches
  std::vector<std::string> keys;  // the first `limit` of them, in key order
};

inline constexpr size_t kDefaultPreview = 20;    // keys a silence preview lists
inline constexpr size_t kDefaultHistory = 20;    // decisions and outbox rows of a detail
inline constexpr size_t kMaxLimit = 10000;       // the largest ?limit= a list accepts
inline constexpr size_t kDefaultTimeline = 500;  // entries per list of a timeline

// The filters of the HTTP list endpoints, from their decoded query parameters. Each rejects a
// parameter it does not know and a bad value with kInvalidArgument naming the parameter:
//   incidents: status=open|resolved|all (default all), condition=NAME, q=TEXT (any case),
//              label=NAME=VALUE, order=key|triage (default key), offset=0.., limit=1..kMaxLimit
//   outbox:    status=<outbox status>, channel=NAME, limit=1..kMaxLimit
//   dead rows: channel=NAME, limit=1..kMaxLimit (the status is dead)
//   detail:    limit=1..kMaxLimit (decisions and outbox rows each; default kDefaultHistory)
//   timeline:  limit=1..kMaxLimit (entries per list; default kDefaultTimeline)
//   silence preview: pattern=GLOB or key=KEY (exactly one), limit=1..kMaxLimit (keys listed;
//              default kDefaultPreview); the text is checked as a silence's would be
using QueryParams = std::map<std::string, std::string>;
core::Result<IncidentFilter> IncidentFilterFrom(const QueryParams& query);
core::Result<OutboxFilter> OutboxFilterFrom(const QueryParams& query);
core::Result<OutboxFilter> DeadFilterFrom(const QueryParams& query);
core::Result<size_t> HistoryLimitFrom(const QueryParams& query);
core::Result<size_t> TimelineLimitFrom(const QueryParams& query);
// group: limit=1..kMaxLimit (members and messages each; default kDefaultGroupMembers)
core::Result<size_t> GroupLimitFrom(const QueryParams& query);
core::Result<SilencePreviewQuery> SilencePreviewFrom(const QueryParams& query);

// The operator's reads, for the HTTP handlers. Errors are the store's, and kNotFound naming
// an unknown key. Not thread-safe (the stores are one per thread).
class OperatorQueries {
 public:
  OperatorQueries(core::IncidentStore& incidents, core::OperatorStore& operators,
                  ConditionSeverities severities = {});
  // With the severities read afresh at each list (the running config's, which a reload
  // replaces); `severities` must be thread-safe and never answer null.
  OperatorQueries(core::IncidentStore& incidents, core::OperatorStore& operators,
                  std::function<std::shared_ptr<const ConditionSeverities>()> severities);

  // One page of the list, filtered, ordered and windowed by the store.
  core::Result<IncidentList> ListIncidents(const IncidentFilter& filter);
  // The incident `key` with its severity and sends as the list has them, and its newest
  // `history` decision lines, outbox rows and group messages.
  core::Result<IncidentDetail> Detail(std::string_view key, size_t history);
  core::Result<std::vector<core::OutboxRow>> ListOutbox(const OutboxFilter& filter);
  // The incident `key`'s timeline (app/incident_timeline.h), the newest `limit` per list.
  core::Result<IncidentTimeline> Timeline(std::string_view key, size_t limit);
  // The group `group_key` of `channel`: its first `limit` members by key and its newest
  // `limit` messages; kNotFound when it has neither.
  core::Result<GroupDetail> Group(std::string_view channel, std::string_view group_key,
                                  size_t limit);
  // The open incidents the silence `query` describes would match now (core::Matches).
  core::Result<SilencePreview> PreviewSilence(const SilencePreviewQuery& query);

 private:
  // The severity the list and the detail show of `listed` (IncidentListItem::severity).
  std::string SeverityOf(core::ListedIncident& listed) const;

  core::IncidentStore& incidents_;
  core::OperatorStore& operators_;
  std::function<std::shared_ptr<const ConditionSeverities>()> severities_;
};

}  // namespace quell::app
