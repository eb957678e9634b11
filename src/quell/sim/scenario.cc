#include "quell/sim/scenario.h"

#include <cstdio>

#include "quell/sim/capture.h"
#include "quell/sim/group_json.h"

namespace quell::sim {
namespace {

using nlohmann::json;

core::Error Bad(std::string why) {
  return core::MakeError(core::ErrorCode::kInvalidArgument, "scenario: " + std::move(why));
}

core::Status AddEvents(SimState& state, Group& g, const json& action) {
  int64_t n = action.value("count", int64_t{1});
  auto at = TimeField(action, "at", state.clock.Now());
  if (!at.ok()) return at.error();
  for (int64_t i = 0; i < n; ++i) {
    Event e;
    e.event_id = state.store.NextEventId();
    e.timestamp = *at;
    e.message = StringField(action, "message", g.message);
    e.context = action.contains("context") ? action["context"] : json(nullptr);
    e.tags = g.tags;
    state.store.AddEvent(g, std::move(e));
  }
  return {};
}

core::Status AddSeries(SimState& state, const json& s) {
  std::string name = StringField(s, "name");
  if (name.empty()) return Bad("a series needs a name");
  Tags tags = TagsField(s, "tags");
  std::string type = StringField(s, "type", "gauge");
  state.store.SeriesFor(name, tags).type = type;
  if (!s.contains("points")) return {};
  if (!s["points"].is_array()) return Bad("series points must be an array");
  for (const json& p : s["points"]) {
    if (!p.contains("value") || !p["value"].is_number()) return Bad("a point needs a number value");
    core::WallTime ts = state.clock.Now();
    auto ago = DurationField(p, "ago");
    if (!ago.ok()) return ago.error();
    if (*ago) ts -= **ago;
    auto explicit_ts = TimeField(p, "ts", ts);
    if (!explicit_ts.ok()) return explicit_ts.error();
    state.store.AddPoint(name, tags, type, Point{*explicit_ts, p["value"].get<double>()});
  }
  return {};
}

core::Status GenerateGroups(SimState& state, const json& gen) {
  int64_t count = gen.value("count", int64_t{0});
  std::string prefix = gen.value("prefix", std::string("grp_gen_"));
  int64_t resolved_every = gen.value("resolved_every", int64_t{0});
  Tags tags = TagsField(gen, "tags");
  core::WallTime now = state.clock.Now();
  if (count > 0) state.store.Reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    char id[64];
    std::snprintf(id, sizeof id, "%s%06lld", prefix.c_str(), static_cast<long long>(i));
    Group g;
    g.id = id;
    g.fingerprint = {"generated", id};
    g.grouping_key = "fp\x1fgenerated\x1f" + g.id;
    g.title = "Generated error " + std::to_string(i);
    g.message = g.title;
    g.count = 1 + i % 7;
    g.first_seen = now - std::chrono::minutes(1 + i % 60);
    g.last_seen = now;
    g.service = "svc" + std::to_string(i % 10);
    g.environment = "production";
    g.tags = tags;
    g.tags["service"] = g.service;
    if (resolved_every > 0 && i % resolved_every == 0) {
      g.resolved = true;
      g.resolved_at = now;
    }
    state.store.Upsert(std::move(g));
  }
  return {};
}

}  // namespace

core::Result<std::optional<core::Duration>> DurationField(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) {
    return std::optional<core::Duration>{};
  }
  if (!j[key].is_string()) return Bad(std::string(key) + " must be a duration like \"1m\"");
  auto d = core::ParseDuration(j[key].get<std::string>());
  if (!d.ok()) return Bad(std::string(key) + ": " + d.error().message);
  return std::optional<core::Duration>{*d};
}

core::Status ApplyAction(SimState& state, const json& action) {
  if (!action.is_object()) return Bad("an action must be an object");
  const std::string op = StringField(action, "op");
  if (op == "capture") {
    auto out = Capture(state.store, action.value("body", json::object()), state.clock.Now());
    if (!out.ok()) return out.error();
    return {};
  }
  if (op == "open") {
    auto g = GroupFromJson(action.value("group", json::object()), state.clock.Now());
    if (!g.ok()) return g.error();
    Group& stored = state.store.Upsert(std::move(*g));
    if (action.value("event", false)) return AddEvents(state, stored, action);
    return {};
  }
  if (op == "event" || op == "resolve") {
    std::string id = StringField(action, "group");
    Group* g = state.store.Find(id);
    if (g == nullptr) {
      return core::MakeError(core::ErrorCode::kNotFound, "scenario: no group \"" + id + "\"");
    }
    if (op == "resolve") {
      state.store.Resolve(id, state.clock.Now());
      return {};
    }
    return AddEvents(state, *g, action);
  }
  if (op == "metric") {
    json series = {{"name", action.value("name", std::string())},
                   {"tags", action.value("tags", json::object())},
                   {"type", action.value("type", std::string("gauge"))},
                   {"points", json::array({{{"value", action.value("value", json(nullptr))}}})}};
    if (action.contains("ts")) series["points"][0]["ts"] = action["ts"];
    return AddSeries(state, series);
  }
  if (op == "fault") {
    auto f = FaultFromJson(action.value("fault", json::object()));
    if (!f.ok()) return f.error();
    state.faults.Add(std::move(*f));
    return {};
  }
  if (op == "clear_faults") {
    state.faults.Clear();
    return {};
  }
  if (op == "advance") {
    auto by = DurationField(action, "by");
    if (!by.ok()) return by.error();
    if (*by) state.clock.Advance(**by);
    return {};
  }
  return Bad("unknown op \"" + op + "\"");
}

core::Status RunDueSteps(SimState& state) {
  for (TimelineStep& step : state.timeline) {
    if (step.done) continue;
    bool due =
        (step.poll && state.polls >= *step.poll) || (step.at && state.clock.Now() >= *step.at);
    if (!due) continue;
    step.done = true;
    for (const json& action : step.actions) {
      if (auto s = ApplyAction(state, action); !s.ok()) return s;
    }
  }
  return {};
}

core::Status LoadScenario(SimState& state, const json& scenario) {
  if (!scenario.is_object()) return Bad("the top level must be an object");
  state.Reset();
  if (scenario.contains("clock")) {
    const json& c = scenario["clock"];
    auto start = TimeField(c, "start", state.clock.Now());
    if (!start.ok()) return start.error();
    state.clock.Set(*start);
    auto per_poll = DurationField(c, "advance_per_poll");
    if (!per_poll.ok()) return per_poll.error();
    if (*per_poll) state.config.advance_per_poll = **per_poll;
  }
  if (scenario.contains("config")) {
    const json& c = scenario["config"];
    state.config.page_size = c.value("page_size", state.config.page_size);
    state.config.max_page_size = c.value("max_page_size", state.config.max_page_size);
    state.config.detail_events = c.value("detail_events", state.config.detail_events);
    auto window = DurationField(c, "metrics_window");
    if (!window.ok()) return window.error();
    if (*window) state.config.metrics_window = **window;
  }
  for (const json& g : scenario.value("groups", json::array())) {
    auto group = GroupFromJson(g, state.clock.Now());
    if (!group.ok()) return Bad(group.error().message);
    int64_t events = g.value("events", int64_t{0});
    Group& stored = state.store.Upsert(std::move(*group));
    if (events > 0) {
      int64_t count = stored.count;
      bool resolved = stored.resolved;
      auto resolved_at = stored.resolved_at;
      if (auto s = AddEvents(state, stored, json{{"count", events}}); !s.ok()) return s;
      // The file's own count and status win over what adding sample events implies.
      if (count > 0) stored.count = count;
      stored.resolved = resolved;
      stored.resolved_at = resolved_at;
    }
  }
  if (scenario.contains("generate_groups")) {
    if (auto s = GenerateGroups(state, scenario["generate_groups"]); !s.ok()) return s;
  }
  for (const json& s : scenario.value("series", json::array())) {
    if (auto st = AddSeries(state, s); !st.ok()) return st;
  }
  for (const json& f : scenario.value("faults", json::array())) {
    auto fault = FaultFromJson(f);
    if (!fault.ok()) return fault.error();
    state.faults.Add(std::move(*fault));
  }
  const core::WallTime start = state.clock.Now();
  for (const json& s : scenario.value("timeline", json::array())) {
    TimelineStep step;
    if (s.contains("poll")) {
      if (!s["poll"].is_number_integer()) return Bad("timeline poll must be an integer");
      step.poll = s["poll"].get<int64_t>();
    }
    auto at = TimeField(s, "at", start);
    if (!at.ok()) return at.error();
    if (s.contains("at")) step.at = *at;
    auto after = DurationField(s, "after");
    if (!after.ok()) return after.error();
    if (*after) step.at = start + **after;
    if (!step.poll && !step.at) return Bad("a timeline step needs poll, at or after");
    step.actions = s.value("actions", json::array());
    if (!step.actions.is_array()) return Bad("timeline actions must be an array");
    state.timeline.push_back(std::move(step));
  }
  return RunDueSteps(state);
}

}  // namespace quell::sim
