#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quell/adapters/channels/http_timeouts.h"
#include "quell/core/text/time.h"

namespace quell::channels {

// `type: sms`: Twilio's Messages API. One SMS channel is one recipient, so its pacing rules
// are that recipient's.
struct SmsSettings {
  std::string base_url = "https://api.twilio.com";
  std::string account_sid;  // "AC..."; also the basic-auth user name
  std::string auth_token;   // basic-auth password; only ever in the Authorization header
  std::string from;         // a Twilio number ("+15005550006") or messaging service
  std::string to;           // the recipient, E.164
  core::Duration min_interval = std::chrono::minutes(10);
  uint32_t daily_cap = 20;
  std::optional<std::string> quiet_start;  // "HH:MM" local to utc_offset
  std::optional<std::string> quiet_end;
  std::string utc_offset = "+00:00";
  std::string time_zone;  // IANA name: quiet hours follow its daylight-saving changes
  std::vector<std::string> quiet_override = {"critical"};  // severities sent in quiet hours
  uint32_t max_segments = 2;
  HttpTimeouts timeouts;  // the builder's, from the channel's delivery settings
};

}  // namespace quell::channels
