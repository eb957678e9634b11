#include "quell/demo/demo_script.h"

namespace quell::demo {

const std::string_view kDemoScenario = R"json({
  "clock": {"start": "2026-12-02T09:00:00Z", "advance_per_poll": "1m"},
  "config": {"page_size": 100, "detail_events": 3},
  "groups": [
    {"id": "grp_model_timeout", "title": "Model call timed out after 30s",
     "message": "upstream timeout calling the answer model for ticket 4411 (jane.doe@example.com)",
     "fingerprint": ["model-answer", "Timeout"], "level": "error", "service": "support-agent",
     "tags": {"tenant": "acme", "agent_stage": "model-answer"}, "events": 3}
  ],
  "timeline": [
    {"poll": 2, "actions": [{"op": "event", "group": "grp_model_timeout", "count": 2}]},
    {"poll": 3, "actions": [{"op": "resolve", "group": "grp_model_timeout"}]},
    {"poll": 4, "actions": [{"op": "event", "group": "grp_model_timeout"}]},
    {"poll": 5, "actions": [{"op": "resolve", "group": "grp_model_timeout"}]}
  ]
})json";

const std::string_view kDemoConfig =
    R"yaml(# The config `quell demo` runs (written next to its store).
store: ${QUELL_STORE}
infrai:
  base_url: ${INFRAI_BASE_URL}
  api_key_env: INFRAI_API_KEY
  retry: {max_attempts: 2}
defaults:
  interval: 1m
  cooldown: 10m
  healthy_polls_to_close: 3
  channels: [support-webhook]
channels:
  - name: support-webhook
    type: webhook
    url: ${QUELL_WEBHOOK_URL}
    secret_env: QUELL_WEBHOOK_SECRET
    timeout: 2s                 # wall time: the receiver holds its first request longer
    max_attempts: 5
    initial_backoff: 30s
    max_backoff: 2m
dispatch:
  lease: 10m
  idle_interval: 6s
conditions:
  - name: agent-errors
    type: error_groups
    key: "{tags.tenant|no-tenant}:{tags.agent_stage|no-stage}:{error_group_id}"
    unhealthy: unresolved
    levels: [error, fatal]
)yaml";

}  // namespace quell::demo
