#include "quell/app/operator_queries.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <memory>
#include <utility>

#include "quell/core/delivery/grouping.h"

namespace quell::app {
namespace {

core::Error Bad(const std::string& message) {
  return core::MakeError(core::ErrorCode::kInvalidArgument, message);
}

// A typo'd parameter would otherwise be ignored and answer the whole list.
core::Status OnlyKnown(const QueryParams& query, std::initializer_list<const char*> known) {
  for (const auto& [name, value] : query) {
    bool ok = false;
    std::string names;
    for (const char* k : known) {
      ok = ok || name == k;
      names.append(names.empty() ? "" : ", ").append(k);
    }
    if (!ok) {
      std::string message = "unknown query parameter \"" + name + "\" (this route takes ";
      message.append(names).append(")");
      return Bad(message);
    }
  }
  return {};
}

core::Result<std::optional<size_t>> Limit(const QueryParams& query) {
  auto it = query.find("limit");
  if (it == query.end()) return std::optional<size_t>{};
  const std::string& text = it->second;
  size_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n == 0 ||
      n > kMaxLimit) {
    return Bad("limit: want a number from 1 to " + std::to_string(kMaxLimit) + ", got \"" + text +
               "\"");
  }
  return std::optional<size_t>{n};
}

std::string Param(const QueryParams& query, const char* name) {
  auto it = query.find(name);
  return it == query.end() ? std::string() : it->second;
}

template <typename T>
void Truncate(std::vector<T>& items, std::optional<size_t> limit) {
  if (limit && items.size() > *limit) items.resize(*limit);
}

}  // namespace

core::Result<IncidentFilter> IncidentFilterFrom(const QueryParams& query) {
  if (auto known =
          OnlyKnown(query, {"status", "condition", "q", "label", "order", "offset", "limit"});
      !known) {
    return known.error();
  }
  IncidentFilter filter;
  const std::string status = Param(query, "status");
  if (status == "open") {
    filter.status = IncidentStatusFilter::kOpen;
  } else if (status == "resolved") {
    filter.status = IncidentStatusFilter::kResolved;
  } else if (!status.empty() && status != "all") {
    return Bad("status: want open, resolved or all, got \"" + status + "\"");
  }
  filter.condition = Param(query, "condition");
  // ASCII only, as both stores' lower() fold it.
  for (char c : Param(query, "q")) {
    filter.text += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  if (auto it = query.find("label"); it != query.end()) {
    const size_t eq = it->second.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Bad("label: want name=value, got \"" + it->second + "\"");
    }
    filter.label.emplace(it->second.substr(0, eq), it->second.substr(eq + 1));
  }
  const std::string order = Param(query, "order");
  if (order == "triage") {
    filter.order = core::IncidentOrder::kTriage;
  } else if (!order.empty() && order != "key") {
    return Bad("order: want key or triage, got \"" + order + "\"");
  }
  if (auto it = query.find("offset"); it != query.end()) {
    const std::string& text = it->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), filter.offset);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      return Bad("offset: want a number from 0, got \"" + text + "\"");
    }
  }
  auto limit = Limit(query);
  if (!limit) return limit.error();
  filter.limit = *limit;
  return filter;
}

core::Result<OutboxFilter> OutboxFilterFrom(const QueryParams& query) {
  if (auto known = OnlyKnown(query, {"status", "channel", "limit"}); !known) return known.error();
  OutboxFilter filter;
  if (auto it = query.find("status"); it != query.end()) {
    auto status = core::ParseOutboxStatus(it->second);
    if (!status) return Bad("status: " + status.error().message);
    filter.status = *status;
  }
  filter.channel = Param(query, "channel");
  auto limit = Limit(query);
  if (!limit) return limit.error();
  filter.limit = *limit;
  return filter;
}

core::Result<OutboxFilter> DeadFilterFrom(const QueryParams& query) {
  if (auto known = OnlyKnown(query, {"channel", "limit"}); !known) return known.error();
  auto filter = OutboxFilterFrom(query);
  if (filter) filter->status = core::OutboxStatus::kDead;
  return filter;
}

core::Result<size_t> HistoryLimitFrom(const QueryParams& query) {
  if (auto known = OnlyKnown(query, {"limit"}); !known) return known.error();
  auto limit = Limit(query);
  if (!limit) return limit.error();
  return limit->value_or(kDefaultHistory);
}

core::Result<size_t> TimelineLimitFrom(const QueryParams& query) {
  if (auto known = OnlyKnown(query, {"limit"}); !known) return known.error();
  auto limit = Limit(query);
  if (!limit) return limit.error();
  return limit->value_or(kDefaultTimeline);
}

core::Result<size_t> GroupLimitFrom(const QueryParams& query) {
  if (auto known = OnlyKnown(query, {"limit"}); !known) return known.error();
  auto limit = Limit(query);
  if (!limit) return limit.error();
  return limit->value_or(kDefaultGroupMembers);
}

core::Result<SilencePreviewQuery> SilencePreviewFrom(const QueryParams& query) {
  if (auto known = OnlyKnown(query, {"pattern", "key", "limit"}); !known) return known.error();
  const bool glob = query.contains("pattern");
  if (glob == query.contains("key")) {
    return Bad("give pattern=GLOB (keys matching a glob) or key=KEY (that key only), one of them");
  }
  SilencePreviewQuery preview;
  preview.match = glob ? core::SilenceMatch::kGlob : core::SilenceMatch::kExact;
  preview.pattern = Param(query, glob ? "pattern" : "key");
  if (auto valid = core::ValidateSilencePattern(preview.match, preview.pattern); !valid) {
    return Bad(std::string(glob ? "pattern: " : "key: ") + valid.error().message);
  }
  auto limit = Limit(query);
  if (!limit) return limit.error();
  preview.limit = limit->value_or(kDefaultPreview);
  return preview;
}

OperatorQueries::OperatorQueries(core::IncidentStore& incidents, core::OperatorStore& operators,
                                 ConditionSeverities severities)
    : incidents_(incidents),
      operators_(operators),
      severities_([fixed = std::make_shared<const ConditionSeverities>(std::move(severities))] {
        return fixed;
      }) {}

OperatorQueries::OperatorQueries(
    core::IncidentStore& incidents, core::OperatorStore& operators,
    std::function<std::shared_ptr<const ConditionSeverities>()> severities)
    : incidents_(incidents), operators_(operators), severities_(std::move(severities)) {}

std::string OperatorQueries::SeverityOf(core::ListedIncident& listed) const {
  const std::shared_ptr<const ConditionSeverities> severities = severities_();
  if (auto configured = severities->find(listed.incident.condition);
      configured != severities->end()) {
    return configured->second;
  }
  if (!listed.newest_level.empty()) return std::move(listed.newest_level);
  // Prometheus' and Grafana's alerts state it as a label; their evidence has no level.
  return std::string(core::FindLabel(listed.incident.labels, "severity").value_or(""));
}

core::Result<IncidentList> OperatorQueries::ListIncidents(const IncidentFilter& filter) {
  auto page = operators_.ListIncidentPage(filter);
  if (!page) return page.error();
  IncidentList list;
  list.total = page->total;
  list.incidents.reserve(page->incidents.size());
  for (core::ListedIncident& listed : page->incidents) {
    std::string severity = SeverityOf(listed);
    list.incidents.push_back(IncidentListItem{std::move(listed.incident), std::move(severity),
                                              listed.notifications_sent});
  }
  return list;
}

core::Result<IncidentDetail> OperatorQueries::Detail(std::string_view key, size_t history) {
  auto found = incidents_.FindIncident(key);
  if (!found) return found.error();
  if (!*found) {
    return core::MakeError(core::ErrorCode::kNotFound,
                           "no incident with key \"" + std::string(key) + "\"");
  }
  IncidentDetail detail;
  detail.incident = std::move(**found);
  // The list's own row of it, so the page and the list never disagree on these two.
  core::IncidentPageQuery one;
  one.key = std::string(key);
  one.limit = 1;
  auto listed = operators_.ListIncidentPage(one);
  if (!listed) return listed.error();
  if (!listed->incidents.empty()) {
    detail.severity = SeverityOf(listed->incidents.front());
    detail.notifications_sent = listed->incidents.front().notifications_sent;
  }
  auto decisions = operators_.RecentDecisions(key, history);
  if (!decisions) return decisions.error();
  detail.decisions = std::move(*decisions);
  auto outbox = operators_.RecentOutbox(key, history);
  if (!outbox) return outbox.error();
  detail.outbox = std::move(*outbox);
  auto groups = operators_.GroupMessagesOf(key, history);
  if (!groups) return groups.error();
  detail.group_messages = std::move(*groups);
  return detail;
}

core::Result<GroupDetail> OperatorQueries::Group(std::string_view channel,
                                                 std::string_view group_key, size_t limit) {
  GroupDetail group;
  group.channel = std::string(channel);
  group.group_key = std::string(group_key);
  group.labels = core::GroupKeyLabels(group_key);
  auto carried = operators_.GroupMemberKeys(channel, group_key, limit);
  if (!carried) return carried.error();
  for (const core::IncidentGeneration& member : *carried) {
    // The list's own row of each, so the group page and the list never disagree.
    core::IncidentPageQuery one;
    one.key = member.key;
    one.limit = 1;
    auto listed = operators_.ListIncidentPage(one);
    if (!listed) return listed.error();
    if (listed->incidents.empty()) continue;  // forgotten since
    core::ListedIncident& row = listed->incidents.front();
    IncidentListItem item;
    item.severity = SeverityOf(row);
    item.notifications_sent = row.notifications_sent;
    item.incident = std::move(row.incident);
    if (item.incident.is_open()) ++group.open;
    group.members.push_back(std::move(item));
  }
  std::stable_partition(group.members.begin(), group.members.end(),
                        [](const IncidentListItem& m) { return m.incident.is_open(); });
  auto rows =
      operators_.RecentOutbox(std::string(core::kGroupKeyPrefix) + std::string(group_key), limit);
  if (!rows) return rows.error();
  for (core::OutboxRow& row : *rows) {
    if (row.channel != channel) continue;
    row.payload.clear();
    group.messages.push_back(std::move(row));
  }
  if (group.members.empty() && group.messages.empty()) {
    return core::MakeError(
        core::ErrorCode::kNotFound,
        "no group \"" + std::string(group_key) + "\" on channel \"" + std::string(channel) + "\"");
  }
  return group;
}

core::Result<IncidentTimeline> OperatorQueries::Timeline(std::string_view key, size_t limit) {
  auto found = incidents_.FindIncident(key);
  if (!found) return found.error();
  if (!*found) {
    return core::MakeError(core::ErrorCode::kNotFound,
                           "no incident with key \"" + std::string(key) + "\"");
  }
  auto stored = operators_.ReadTimeline(key, limit);
  if (!stored) return stored.error();
  return BuildTimeline(**found, std::move(*stored), limit);
}

core::Result<std::vector<core::OutboxRow>> OperatorQueries::ListOutbox(const OutboxFilter& filter) {
  auto rows = incidents_.ListOutbox(filter.status);
  if (!rows || filter.channel.empty()) {
    if (rows) Truncate(*rows, filter.limit);
    return rows;
  }
  std::vector<core::OutboxRow> out;
  for (core::OutboxRow& row : *rows) {
    if (filter.limit && out.size() == *filter.limit) break;
    if (row.channel == filter.channel) out.push_back(std::move(row));
  }
  return out;
}

core::Result<SilencePreview> OperatorQueries::PreviewSilence(const SilencePreviewQuery& query) {
  core::IncidentPageQuery open;
  open.status = IncidentStatusFilter::kOpen;
  auto page = operators_.ListIncidentPage(open);
  if (!page) return page.error();
  core::Silence silence;
  silence.match = query.match;
  silence.pattern = query.pattern;
  SilencePreview preview;
  for (core::ListedIncident& listed : page->incidents) {
    if (!core::Matches(silence, listed.incident.key)) continue;
    ++preview.matched;
    if (preview.keys.size() < query.limit) preview.keys.push_back(std::move(listed.incident.key));
  }
  return preview;
}

}  // namespace quell::app
