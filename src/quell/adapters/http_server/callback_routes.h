#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "quell/adapters/channels/ack_link.h"
#include "quell/app/operator_commands.h"
#include "quell/app/ops_request.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/event_log.h"
#include "quell/core/ports/http_client.h"

namespace quell::http_server {

struct CallbackSettings {
  // Signs and checks ack links; null: no /v1/ack route.
  std::shared_ptr<const channels::AckLinkSigner> ack_links;
  // The PagerDuty webhook subscriptions' signing secrets; empty: no /v1/pagerduty/webhook.
  std::vector<std::string> pagerduty_secrets;
  // The Slack apps' signing secrets; empty: no /v1/slack/interactivity.
  std::vector<std::string> slack_signing_secrets;
  // Posts the answer for the clicker to a click's response_url (Slack shows nothing of the
  // reply to the click itself); null: the answer goes nowhere. Must outlive the routes.
  core::HttpClient* slack_responses = nullptr;
};

// The routes a page's reader calls back on, outside the bearer token (each request carries its
// own proof), for the ops server (docs/http.md):
//   GET  /v1/ack/{token}   an HTML page naming the incident, with a button that POSTs here;
//                          changes nothing, since chat clients GET links to preview them
//   POST /v1/ack/{token}   acks the token's generation of its incident through `commands`, by
//                          "link"; an HTML page says what happened
//   POST /v1/pagerduty/webhook   a PagerDuty v3 webhook: incident.acknowledged and
//                          incident.resolved for a dedup key quell sent (data.incident_key) ack
//                          or resolve the incident, or a group's open members
//                          (app::ApplyPagerAction), by "pagerduty:<agent>"; 401 without a valid
//                          X-PagerDuty-Signature, 200 for any other event or an unknown key
//                          (PagerDuty would retry anything else), 503 when the store fails
//   POST /v1/slack/interactivity   a Slack block_actions payload (form field `payload`): a
//                          click on a message's Acknowledge button (action_id quell_ack) acks
//                          the key, generation or group its value names, by "slack:<user>",
//                          and tells the clicker the outcome through the payload's
//                          response_url (settings.slack_responses); 401 without a valid
//                          X-Slack-Signature or with a timestamp over 5 minutes from now, 200
//                          otherwise (Slack shows an error for others)
// A token that is malformed (400), forged (403), expired (410), for an unknown key (404) or
// for a generation that is not open any more (409) is refused with a page saying why, and
// logged (`http.ack_link`, with the key and generation, never the token). `commands`, `clock`
// and `log` must outlive the routes; calls are serialised on a mutex of their own, so
// `commands` must be these routes' own (its store handle is not shared with other threads).
std::vector<app::OpsRoute> CallbackRoutes(app::OperatorCommands& commands, core::Clock& clock,
                                          core::EventLog& log, const CallbackSettings& settings);

// The settings a request is checked with, read afresh for each (the running config's, which a
// reload replaces, so a rotated secret is refused from the reload on). Never null; thread-safe.
using CallbackSettingsSource = std::function<std::shared_ptr<const CallbackSettings>()>;

// The same routes over settings that change: every route exists whatever the settings hold now,
// and one whose settings are empty at a request answers 404 (not configured), so a reload can
// add, rotate or remove each kind of callback.
std::vector<app::OpsRoute> CallbackRoutes(app::OperatorCommands& commands, core::Clock& clock,
                                          core::EventLog& log,
                                          const CallbackSettingsSource& settings);

}  // namespace quell::http_server
