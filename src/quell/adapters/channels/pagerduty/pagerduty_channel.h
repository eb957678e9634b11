#pragma once

#include <memory>
#include <string>

#include "quell/adapters/channels/http_channel_support.h"
#include "quell/adapters/channels/pagerduty/pagerduty_settings.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

// PagerDuty Events API v2: POST {base}/v2/enqueue. Open and renotify trigger, resolve
// resolves; dedup_key = "<incident key>:<generation>", so every event of one incident
// generation lands on one PagerDuty alert and a retried trigger is absorbed by PagerDuty's own
// deduplication. 202 is sent, with the dedup_key as remote id. A group's messages make one
// alert per episode of the group (core::GroupEpisodeOf): dedup_key = "{group:<channel>:
// <episode>}:<group key>", trigger while members stay open (open_after > 0), resolve once none
// does. The key names what PagerDuty's webhooks may act on (core/delivery/callback_key.h).
// Severities map onto PagerDuty's four: fatal is critical, anything unknown is error.
class PagerDutyChannel : public core::HttpChannel {
 public:
  static core::Result<std::unique_ptr<PagerDutyChannel>> Create(PagerDutySettings settings);

  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  explicit PagerDutyChannel(PagerDutySettings settings) : settings_(std::move(settings)) {}
  PagerDutySettings settings_;
};

// "<key>:<generation>"; for a group message its episode's key, the same for every message of
// the episode (core::GroupAlertCallbackKey), or its row key when the episode began before
// episodes were kept.
std::string PagerDutyDedupKey(const core::Delivery& delivery);

}  // namespace quell::channels
