#include "quell/adapters/text_output/maintenance_json.h"

#include "quell/core/engine/labels.h"
#include "quell/core/text/json_escape.h"

namespace quell::text_output {
namespace {

// The local reading as "YYYY-MM-DDTHH:MM:SS", without an offset: the zone is named beside it.
std::string LocalText(const core::ZoneRules& zones, const std::string& zone, core::WallTime at) {
  auto local = zones.ToLocal(zone, at);
  if (!local) return "";
  std::string text = core::FormatRfc3339(core::WallTime{local->time_since_epoch()});
  if (!text.empty() && text.back() == 'Z') text.pop_back();
  return text;
}

void Member(std::string& out, const char* name, const std::string& value) {
  out += ",\"";
  out += name;
  out += "\":";
  core::AppendJsonString(out, value);
}

}  // namespace

core::Result<std::string> MaintenanceWindowJson(const core::MaintenanceWindow& window,
                                                const core::ZoneRules& zones, core::WallTime at) {
  auto active = core::WindowActiveAt(window, zones, at);
  if (!active) return active.error();
  auto span = core::CurrentOrNextSpan(window, zones, at);
  if (!span) return span.error();
  std::string out = "{\"name\":";
  core::AppendJsonString(out, window.name);
  Member(out, "keys", window.keys);
  out += ",\"labels\":";
  core::AppendLabelsJson(out, window.labels);
  Member(out, "time_zone", window.time_zone);
  // Monday first, as people read a week and write the config.
  out += ",\"weekdays\":[";
  bool first = true;
  for (unsigned i = 1; i <= 7; ++i) {
    if (!window.weekdays[i % 7]) continue;
    if (!first) out += ',';
    first = false;
    core::AppendJsonString(out, core::WeekdayName(i % 7));
  }
  out += "],\"times\":[";
  for (size_t i = 0; i < window.times.size(); ++i) {
    if (i > 0) out += ',';
    core::AppendJsonString(out, core::FormatTimeRange(window.times[i]));
  }
  out += *active ? "],\"active\":true" : "],\"active\":false";
  if (*span) {
    const core::WindowSpan& s = **span;
    Member(out, "start", core::FormatRfc3339(s.start));
    Member(out, "start_local", LocalText(zones, window.time_zone, s.start));
    Member(out, "end", core::FormatRfc3339(s.end));
    Member(out, "end_local", LocalText(zones, window.time_zone, s.end));
  }
  out += '}';
  return out;
}

std::string OneOffWindowJson(const core::OneOffWindow& window, core::WallTime at) {
  std::string out = "{\"id\":" + std::to_string(window.id);
  Member(out, "name", window.name);
  Member(out, "keys", window.keys);
  out += ",\"labels\":";
  core::AppendLabelsJson(out, window.labels);
  Member(out, "starts_at", core::FormatRfc3339(window.starts_at));
  Member(out, "ends_at", core::FormatRfc3339(window.ends_at));
  Member(out, "reason", window.reason);
  Member(out, "created_by", window.created_by);
  Member(out, "created_at", core::FormatRfc3339(window.created_at));
  out += window.ActiveAt(at) ? ",\"active\":true}" : ",\"active\":false}";
  return out;
}

}  // namespace quell::text_output
