#pragma once

#include <memory>
#include <string>

#include "quell/adapters/channels/http_channel_support.h"
#include "quell/adapters/channels/opsgenie/opsgenie_settings.h"
#include "quell/core/ports/channel.h"

namespace quell::channels {

// Opsgenie's Alert API (kept by Jira Service Management). Open and renotify create an alert,
// POST {api_url}/v2/alerts, whose alias is the incident's (OpsgenieAlias): while that alert is
// open Opsgenie creates no second one for the alias but counts the request on it, so a retried
// create (an answer lost after acceptance) leaves exactly one alert. A resolve closes it by
// alias, POST {api_url}/v2/alerts/<alias>/close?identifierType=alias. Opsgenie answers 202 and
// processes asynchronously; the answer's requestId is the remote id. A group message is one
// alert per group, aliased by the group row's key: created while members stay open
// (open_after > 0), closed once none does. Priority from severity: fatal and critical P1,
// error P2, warning P3, info P4; an unknown word P2 (it still pages).
class OpsgenieChannel : public core::HttpChannel {
 public:
  static core::Result<std::unique_ptr<OpsgenieChannel>> Create(OpsgenieSettings settings);

  core::Result<core::HttpRequest> Encode(const core::Delivery& delivery,
                                         core::WallTime now) const override;
  core::SendOutcome Decode(const core::Delivery& delivery,
                           const core::HttpResponse& response) const override;

 private:
  explicit OpsgenieChannel(OpsgenieSettings settings) : settings_(std::move(settings)) {}
  OpsgenieSettings settings_;
};

// "<key>:<generation>", or a group row's key: the same for every message of one incident
// generation (or group). One over Opsgenie's 512 characters keeps its first part and ends in
// "~" and 32 hex digits of its SHA-256, so it stays unique and the same on every dispatcher.
std::string OpsgenieAlias(const core::OutboxRow& row);

// "P1".."P4" for a quell severity, as above.
const char* OpsgeniePriority(std::string_view severity);

}  // namespace quell::channels
