#include "quell/adapters/text_output/sources_json.h"

#include <nlohmann/json.hpp>

namespace quell::text_output {
namespace {

using Json = nlohmann::ordered_json;  // the fields in the documented order

Json TimeOrNull(const std::optional<core::WallTime>& t) {
  return t ? Json(core::FormatRfc3339(*t)) : Json(nullptr);
}

Json LastCycleJson(const app::LastConditionCycle& last) {
  const app::ConditionOutcome& o = last.outcome;
  return Json{{"at", core::FormatRfc3339(last.at)}, {"source_ok", o.source_ok},
              {"source_error", o.source_error},     {"applied", o.applied},
              {"apply_error", o.apply_error},       {"observations", o.observations}};
}

}  // namespace

std::string SourcesJson(const SourcesAnswer& answer) {
  Json sources = Json::array();
  for (const app::SourceEntry& s : answer.catalog.sources) {
    sources.push_back(Json{{"name", s.name},
                           {"type", s.type},
                           {"base_url", s.base_url},
                           {"conditions", s.conditions}});
  }
  Json conditions = Json::array();
  for (const app::ConditionEntry& c : answer.catalog.conditions) {
    const auto last = answer.last_cycles.find(c.name);
    conditions.push_back(
        Json{{"name", c.name},
             {"source", c.source},
             {"interval", core::FormatDuration(c.interval)},
             {"shadow", c.shadow},
             {"last_cycle",
              last == answer.last_cycles.end() ? Json(nullptr) : LastCycleJson(last->second)}});
  }
  const app::HeartbeatStats& h = answer.heartbeat;
  Json heartbeat{{"configured", answer.heartbeat_configured},
                 {"last_ping_at", TimeOrNull(h.last_at)},
                 {"last_ok", h.last_ok ? Json(*h.last_ok) : Json(nullptr)},
                 {"sent", h.sent},
                 {"failed", h.failed},
                 {"dropped", h.dropped}};
  Json out{{"now", core::FormatRfc3339(answer.now)},
           {"instance", answer.instance.empty() ? Json(nullptr) : Json(answer.instance)},
           {"sources", std::move(sources)},
           {"conditions", std::move(conditions)},
           {"heartbeat", std::move(heartbeat)}};
  return out.dump();
}

}  // namespace quell::text_output
