#include "quell/adapters/channels/sms/sms_reader.h"

#include <cctype>
#include <string>

#include "quell/adapters/config/config_names.h"
#include "quell/adapters/zones/date_zone_rules.h"

namespace quell::channels {
namespace {

bool ValidClock(const std::string& text) {
  if (text.size() != 5 || text[2] != ':') return false;
  for (const size_t i : {0U, 1U, 3U, 4U}) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return std::stoi(text.substr(0, 2)) < 24 && std::stoi(text.substr(3, 2)) < 60;
}

bool ValidOffset(const std::string& text) {
  return text.size() == 6 && (text[0] == '+' || text[0] == '-') && ValidClock(text.substr(1));
}

}  // namespace

void ReadSmsSettings(ChannelReading& reading, SmsSettings& out) {
  config::MapReader& item = reading.item;
  item.Read("base_url", out.base_url);
  reading.RequireUrl("base_url", out.base_url, {"http://", "https://"});
  item.Read("account_sid", out.account_sid);
  out.auth_token = reading.Secret("auth_token", true);
  item.Read("from", out.from);
  item.Read("to", out.to);
  item.Read("min_interval", out.min_interval);
  item.Read("daily_cap", out.daily_cap, 1, 10000);
  item.Read("max_segments", out.max_segments, 1, 10);
  if (out.account_sid.empty()) item.Fail("account_sid", "the account SID is required");
  if (out.from.empty()) item.Fail("from", "the sending number is required");
  if (out.to.empty()) item.Fail("to", "the recipient number is required");
  if (item.Has("quiet_hours")) {
    config::MapReader quiet = item.Child("quiet_hours");
    std::string start;
    std::string end;
    quiet.Read("start", start);
    quiet.Read("end", end);
    quiet.Read("utc_offset", out.utc_offset);
    quiet.Read("time_zone", out.time_zone);
    if (quiet.Has("utc_offset") && quiet.Has("time_zone")) {
      quiet.Fail("utc_offset", "give time_zone or utc_offset, not both");
    } else if (!out.time_zone.empty()) {
      if (auto known = zones::SystemZoneRules().CheckZone(out.time_zone); !known) {
        quiet.Fail("time_zone", known.error().message);
      }
    } else if (quiet.Has("utc_offset")) {
      reading.warnings.push_back(
          quiet.Locate("utc_offset") +
          ": a fixed offset is wrong on one side of every daylight-saving change; "
          "give time_zone (an IANA name such as Europe/Berlin) instead");
    }
    quiet.Read("override", out.quiet_override);
    if (!ValidClock(start)) quiet.Fail("start", "expected HH:MM, e.g. 22:00");
    if (!ValidClock(end)) quiet.Fail("end", "expected HH:MM, e.g. 07:00");
    if (!ValidOffset(out.utc_offset)) quiet.Fail("utc_offset", "expected +HH:MM or -HH:MM");
    for (const std::string& severity : out.quiet_override) {
      if (!config::IsSeverity(severity)) {
        quiet.Fail("override", "expected severities (critical, error, warning, info), got \"" +
                                   severity + "\"");
      }
    }
    quiet.Finish();
    out.quiet_start = start;
    out.quiet_end = end;
  }
}

}  // namespace quell::channels
