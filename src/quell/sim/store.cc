#include "quell/sim/store.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <type_traits>

namespace quell::sim {
namespace {

bool ContainsFolded(const std::string& haystack, const std::string& needle_lower) {
  auto it =
      std::search(haystack.begin(), haystack.end(), needle_lower.begin(), needle_lower.end(),
                  [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != haystack.end();
}

std::string SeriesKey(const std::string& name, const Tags& tags) {
  std::string key = name;
  for (const auto& [k, v] : tags) {
    key += '\x1f';
    key += k;
    key += '=';
    key += v;
  }
  return key;
}

// A growing table moves its groups only when moving cannot throw; otherwise it copies each.
static_assert(std::is_nothrow_move_constructible_v<Group>);

}  // namespace

bool GroupFilter::Matches(const Group& g) const {
  if (status == "unresolved" && g.resolved) return false;
  if (status == "resolved" && !g.resolved) return false;
  if (!level.empty() && g.level != level) return false;
  if (!environment.empty() && g.environment != environment) return false;
  if (since && g.last_seen < *since) return false;
  if (!q.empty()) {
    std::string lower;
    for (char c : q) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool hit = ContainsFolded(g.id, lower) || ContainsFolded(g.title, lower) ||
               ContainsFolded(g.message, lower);
    for (const auto& part : g.fingerprint) hit = hit || ContainsFolded(part, lower);
    if (!hit) return false;
  }
  return true;
}

std::string GroupIdForKey(const std::string& grouping_key) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : grouping_key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "grp_%016llx", static_cast<unsigned long long>(h));
  return buf;
}

Group& Store::Upsert(Group g) {
  // One hash lookup for the id whether it is new or not: a generated set inserts a million.
  const auto [it, inserted] = by_id_.try_emplace(g.id, groups_.size());
  if (!inserted) {
    Group& existing = groups_[it->second];
    g.events = std::move(existing.events);
    if (g.grouping_key.empty()) g.grouping_key = existing.grouping_key;
    existing = std::move(g);
    if (!existing.grouping_key.empty()) by_key_[existing.grouping_key] = it->second;
    return existing;
  }
  if (!g.grouping_key.empty()) by_key_[g.grouping_key] = it->second;
  groups_.push_back(std::move(g));
  return groups_.back();
}

void Store::Reserve(size_t n) {
  groups_.reserve(groups_.size() + n);
  by_id_.reserve(by_id_.size() + n);
  by_key_.reserve(by_key_.size() + n);
}

Group* Store::Find(const std::string& id) {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &groups_[it->second];
}

Group* Store::FindByKey(const std::string& grouping_key) {
  auto it = by_key_.find(grouping_key);
  return it == by_key_.end() ? nullptr : &groups_[it->second];
}

void Store::AddEvent(Group& g, Event e) {
  if (g.count == 0) g.first_seen = e.timestamp;
  g.count += 1;
  g.last_seen = std::max(g.last_seen, e.timestamp);
  // Sentry-style regression: a new event on a resolved group means the fix did not hold.
  g.resolved = false;
  g.resolved_at.reset();
  g.events.push_back(std::move(e));
  if (g.events.size() > event_cap) {
    // At most event_cap moves, on a path that serves one capture.
    g.events.erase(g.events.begin(),
                   g.events.begin() + static_cast<std::ptrdiff_t>(g.events.size() - event_cap));
  }
}

bool Store::Resolve(const std::string& id, core::WallTime now) {
  Group* g = Find(id);
  if (g == nullptr) return false;
  if (!g->resolved) {
    g->resolved = true;
    g->resolved_at = now;
  }
  return true;
}

ListPage Store::List(const GroupFilter& filter, size_t offset, size_t limit) const {
  ListPage page;
  size_t i = offset;
  for (; i < groups_.size() && page.groups.size() < limit; ++i) {
    if (filter.Matches(groups_[i])) page.groups.push_back(&groups_[i]);
  }
  // Look ahead for one more match so the last page reliably carries a null cursor.
  for (; i < groups_.size(); ++i) {
    if (filter.Matches(groups_[i])) {
      page.next_offset = i;
      break;
    }
  }
  return page;
}

Series& Store::SeriesFor(const std::string& name, const Tags& tags) {
  std::string key = SeriesKey(name, tags);
  if (auto it = series_index_.find(key); it != series_index_.end()) return series_[it->second];
  series_index_[key] = series_.size();
  series_.push_back(Series{name, tags, "gauge", {}});
  return series_.back();
}

void Store::AddPoint(const std::string& name, const Tags& tags, const std::string& type, Point p) {
  Series& s = SeriesFor(name, tags);
  if (!type.empty()) s.type = type;
  auto pos = std::upper_bound(s.points.begin(), s.points.end(), p.ts,
                              [](core::WallTime t, const Point& q) { return t < q.ts; });
  s.points.insert(pos, p);
}

std::string Store::NextEventId() {
  char buf[32];
  std::snprintf(buf, sizeof buf, "evt_%010llu", static_cast<unsigned long long>(next_event_++));
  return buf;
}

void Store::Clear() {
  size_t cap = event_cap;
  *this = Store{};
  event_cap = cap;
}

}  // namespace quell::sim
