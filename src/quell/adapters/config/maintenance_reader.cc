#include "quell/adapters/config/maintenance_reader.h"

#include <set>
#include <string>

namespace quell::config {

void ReadMaintenance(MapReader& top, const core::ZoneRules& zones,
                     std::vector<core::MaintenanceWindow>& out) {
  if (!top.Has("maintenance")) return;
  std::set<std::string, std::less<>> names;
  for (MapReader& item : top.Items("maintenance")) {
    core::MaintenanceWindow window;
    item.Read("name", window.name);
    if (window.name.empty()) {
      item.Fail("name", "each maintenance window needs a name");
    } else if (!names.insert(window.name).second) {
      item.Fail("name", "a second window named \"" + window.name + "\"");
    }
    item.Read("keys", window.keys);
    if (window.keys.empty()) item.Fail("keys", "an empty key glob matches nothing");
    item.Read("labels", window.labels);
    item.Read("time_zone", window.time_zone);
    if (window.time_zone.empty()) {
      item.Fail("time_zone", "needs an IANA time zone such as Europe/Berlin");
    } else if (auto known = zones.CheckZone(window.time_zone); !known) {
      item.Fail("time_zone", known.error().message);
    }
    std::vector<std::string> weekdays;
    item.ReadNameList("weekdays", weekdays);
    if (weekdays.empty()) item.Fail("weekdays", "needs at least one weekday");
    for (const std::string& day : weekdays) {
      auto parsed = core::ParseWeekday(day);
      if (!parsed) {
        item.Fail("weekdays", parsed.error().message);
      } else {
        window.weekdays[*parsed] = true;
      }
    }
    std::vector<std::string> times;
    item.ReadNameList("times", times);
    if (times.empty()) item.Fail("times", "needs at least one range such as \"09:00-10:00\"");
    for (const std::string& text : times) {
      auto range = core::ParseTimeRange(text);
      if (!range) {
        item.Fail("times", range.error().message);
      } else {
        window.times.push_back(*range);
      }
    }
    item.Finish();
    out.push_back(std::move(window));
  }
}

}  // namespace quell::config
