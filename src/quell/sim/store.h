#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "quell/core/text/time.h"

namespace quell::sim {

using Tags = std::map<std::string, std::string>;

struct Event {
  std::string event_id;
  core::WallTime timestamp;
  std::string message;
  nlohmann::json exception;  // null, a string traceback or {type, message, stacktrace}
  nlohmann::json context;    // null or an object, as sent
  Tags tags;
};

struct Group {
  std::string id;
  std::string grouping_key;  // what captures hash to; empty for groups made by the admin API
  std::vector<std::string> fingerprint;
  std::string title;
  std::string message;
  std::string level = "error";
  bool resolved = false;
  int64_t count = 0;
  core::WallTime first_seen;
  core::WallTime last_seen;
  std::optional<core::WallTime> resolved_at;
  std::string environment;
  std::string release;
  std::string service;
  Tags tags;
  // Most recent last, bounded by Store::event_cap. A vector, not a deque: libstdc++'s deque
  // allocates a 512-byte block even when empty (half a gigabyte over a million generated
  // groups that never get an event) and its move is not noexcept, so a growing vector<Group>
  // copied every group.
  std::vector<Event> events;
};

struct Point {
  core::WallTime ts;
  double value = 0;
};

struct Series {
  std::string name;
  Tags tags;
  std::string type = "gauge";
  std::vector<Point> points;  // kept sorted by ts
};

// Which groups a listing wants; empty fields match everything.
struct GroupFilter {
  std::string q;       // case-insensitive substring of id, title, message or fingerprint
  std::string status;  // "unresolved", "resolved" or empty/"all"
  std::string level;
  std::string environment;
  std::optional<core::WallTime> since;  // last_seen >= since
  bool Matches(const Group& g) const;
};

struct ListPage {
  std::vector<const Group*> groups;
  std::optional<size_t> next_offset;  // absent on the last page
};

// The in-memory Infrai account: error groups in insertion order (so a cursor is a stable offset
// and a walk sees every group exactly once even while captures append) and metric series.
// Not thread-safe: SimState's mutex guards it.
class Store {
 public:
  size_t event_cap = 50;

  // Inserts `g` or, when its id exists, replaces the group's fields keeping its events.
  Group& Upsert(Group g);
  Group* Find(const std::string& id);
  Group* FindByKey(const std::string& grouping_key);
  // Records `e` on `g`: count, last_seen, bounded event ring; a resolved group reopens.
  void AddEvent(Group& g, Event e);
  // Returns false when `id` is unknown. Resolving a resolved group keeps its resolved_at.
  bool Resolve(const std::string& id, core::WallTime now);
  ListPage List(const GroupFilter& filter, size_t offset, size_t limit) const;
  size_t group_count() const { return groups_.size(); }
  // Room for `n` more groups without regrowing the table or the indexes (generated sets).
  void Reserve(size_t n);

  Series& SeriesFor(const std::string& name, const Tags& tags);
  void AddPoint(const std::string& name, const Tags& tags, const std::string& type, Point p);
  const std::vector<Series>& series() const { return series_; }

  std::string NextEventId();
  void Clear();

 private:
  std::vector<Group> groups_;
  std::unordered_map<std::string, size_t> by_id_;
  std::unordered_map<std::string, size_t> by_key_;
  std::vector<Series> series_;
  std::unordered_map<std::string, size_t> series_index_;
  uint64_t next_event_ = 1;
};

// A stable id for a grouping key: "grp_" + 16 hex digits of FNV-1a, so tests can predict it.
std::string GroupIdForKey(const std::string& grouping_key);

}  // namespace quell::sim
