#pragma once

#include <string>
#include <vector>

namespace quell::infrai {

// Remote field names to try, in order, for each field quell reads. The defaults accept the
// aliases INFRAI.md lists; a config entry replaces a field's list.
struct InfraiFields {
  std::vector<std::string> groups = {"groups", "items"};
  std::vector<std::string> next_cursor = {"next_cursor", "nextCursor", "cursor"};
  std::vector<std::string> id = {"error_group_id", "id", "group_id"};
  std::vector<std::string> title = {"title"};
  std::vector<std::string> message = {"message"};
  std::vector<std::string> level = {"level"};
  std::vector<std::string> status = {"status"};
  std::vector<std::string> resolved = {"is_resolved", "resolved"};
  std::vector<std::string> count = {"count", "event_count"};
  std::vector<std::string> first_seen = {"first_seen", "firstSeen"};
  std::vector<std::string> last_seen = {"last_seen", "lastSeen"};
  std::vector<std::string> tags = {"tags"};
  std::vector<std::string> series = {"series"};
  std::vector<std::string> series_labels = {"tags", "labels"};
  std::vector<std::string> points = {"points"};
  std::vector<std::string> point_time = {"ts", "timestamp", "time"};
  std::vector<std::string> point_value = {"value", "v"};
};

}  // namespace quell::infrai
