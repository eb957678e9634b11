// /_sim/...: the test and demo control surface. No Infrai auth, no faults, plain JSON answers.
#include <httplib.h>

#include "quell/sim/group_json.h"
#include "quell/sim/router.h"
#include "quell/sim/scenario.h"

namespace quell::sim {
namespace {

using nlohmann::json;

Reply Problem(int status, const std::string& message) {
  return Reply::Raw({{"ok", false}, {"error", message}}, status);
}

Reply FromStatus(const core::Status& s, json ok_body = {{"ok", true}}) {
  if (s.ok()) return Reply::Raw(std::move(ok_body));
  return Problem(s.error().code == core::ErrorCode::kNotFound ? 404 : 400, s.error().message);
}

json Body(const httplib::Request& req) {
  if (req.body.empty()) return json::object();
  return json::parse(req.body, nullptr, false);
}

json Summary(const SimState& s) {
  return {{"groups", s.store.group_count()},
          {"series", s.store.series().size()},
          {"polls", s.polls},
          {"now", core::FormatRfc3339(s.clock.Now())},
          {"manual_clock", s.clock.manual()},
          {"page_size", s.config.page_size},
          {"max_page_size", s.config.max_page_size},
          {"detail_events", s.config.detail_events},
          {"timeline_pending", std::count_if(s.timeline.begin(), s.timeline.end(),
                                             [](const TimelineStep& t) { return !t.done; })}};
}

// Wraps a handler that needs a parsed JSON body.
template <typename F>
Handler WithBody(F f) {
  return [f](const httplib::Request& req, SimState& s) {
    json body = Body(req);
    if (body.is_discarded()) return Problem(400, "the body is not valid JSON");
    return f(req, s, body);
  };
}

RouteInfo Admin(std::string templ) {
  RouteInfo info;
  info.capability = "admin";
  info.templ = std::move(templ);
  info.admin = true;
  info.requires_auth = false;
  return info;
}

}  // namespace

void RegisterAdminRoutes(Router& r) {
  r.Get("/_sim/state", Admin("/_sim/state"),
        [](const httplib::Request&, SimState& s) { return Reply::Raw(Summary(s)); });
  r.Post("/_sim/reset", Admin("/_sim/reset"), [](const httplib::Request&, SimState& s) {
    s.Reset();
    return Reply::Raw(Summary(s));
  });
  r.Post("/_sim/scenario", Admin("/_sim/scenario"),
         WithBody([](const httplib::Request&, SimState& s, const json& body) {
           core::Status loaded = LoadScenario(s, body);  // before Summary() reads the state
           return FromStatus(loaded, Summary(s));
         }));
  r.Post("/_sim/config", Admin("/_sim/config"),
         WithBody([](const httplib::Request&, SimState& s, const json& c) {
           s.config.page_size = c.value("page_size", s.config.page_size);
           s.config.max_page_size = c.value("max_page_size", s.config.max_page_size);
           s.config.detail_events = c.value("detail_events", s.config.detail_events);
           auto per_poll = DurationField(c, "advance_per_poll");
           if (!per_poll.ok()) return Problem(400, per_poll.error().message);
           if (*per_poll) s.config.advance_per_poll = **per_poll;
           auto window = DurationField(c, "metrics_window");
           if (!window.ok()) return Problem(400, window.error().message);
           if (*window) s.config.metrics_window = **window;
           return Reply::Raw(Summary(s));
         }));
  r.Post("/_sim/groups", Admin("/_sim/groups"),
         WithBody([](const httplib::Request&, SimState& s, const json& body) {
           json action = {{"op", "open"}, {"group", body}};
           if (body.contains("events")) {
             action["event"] = true;
             action["count"] = body["events"];
           }
           auto group = GroupFromJson(body, s.clock.Now());
           if (!group.ok()) return Problem(400, group.error().message);
           const std::string id = group->id;
           if (auto st = ApplyAction(s, action); !st.ok()) return FromStatus(st);
           return Reply::Raw(GroupDetailToJson(*s.store.Find(id), s.config.detail_events));
         }));
  r.Post(
      R"(/_sim/groups/([^/]+)/events)", Admin("/_sim/groups/{id}/events"),
      WithBody([](const httplib::Request& req, SimState& s, const json& body) {
        json action = body.is_object() ? body : json::object();
        action["op"] = "event";
        action["group"] = req.matches[1].str();
        auto st = ApplyAction(s, action);
        if (!st.ok()) return FromStatus(st);
        return Reply::Raw(GroupDetailToJson(*s.store.Find(req.matches[1]), s.config.detail_events));
      }));
  r.Post(R"(/_sim/groups/([^/]+)/resolve)", Admin("/_sim/groups/{id}/resolve"),
         [](const httplib::Request& req, SimState& s) {
           auto st = ApplyAction(s, {{"op", "resolve"}, {"group", req.matches[1].str()}});
           if (!st.ok()) return FromStatus(st);
           return Reply::Raw(GroupToJson(*s.store.Find(req.matches[1])));
         });
  r.Post("/_sim/metrics", Admin("/_sim/metrics"),
         WithBody([](const httplib::Request&, SimState& s, const json& body) {
           json action = body.is_object() ? body : json::object();
           action["op"] = "metric";
           return FromStatus(ApplyAction(s, action));
         }));
  r.Post("/_sim/actions", Admin("/_sim/actions"),
         WithBody([](const httplib::Request&, SimState& s, const json& body) {
           if (!body.is_array()) return Problem(400, "expected an array of actions");
           for (const json& a : body) {
             if (auto st = ApplyAction(s, a); !st.ok()) return FromStatus(st);
           }
           return Reply::Raw(Summary(s));
         }));
  r.Get("/_sim/faults", Admin("/_sim/faults"), [](const httplib::Request&, SimState& s) {
    json out = json::array();
    for (const Fault& f : s.faults.faults()) out.push_back(FaultToJson(f));
    return Reply::Raw({{"faults", out}});
  });
  r.Post("/_sim/faults", Admin("/_sim/faults"),
         WithBody([](const httplib::Request&, SimState& s, const json& body) {
           json list =
               body.is_object() && body.contains("faults") ? body["faults"] : json::array({body});
           for (const json& j : list) {
             auto f = FaultFromJson(j);
             if (!f.ok()) return Problem(400, f.error().message);
             s.faults.Add(std::move(*f));
           }
           return Reply::Raw({{"ok", true}, {"faults", s.faults.faults().size()}});
         }));
  r.Delete("/_sim/faults", Admin("/_sim/faults"), [](const httplib::Request&, SimState& s) {
    s.faults.Clear();
    return Reply::Raw({{"ok", true}});
  });
  r.Get("/_sim/clock", Admin("/_sim/clock"), [](const httplib::Request&, SimState& s) {
    return Reply::Raw({{"now", core::FormatRfc3339(s.clock.Now())}, {"polls", s.polls}});
  });
  r.Post("/_sim/clock", Admin("/_sim/clock"),
         WithBody([](const httplib::Request&, SimState& s, const json& body) {
           auto by = DurationField(body, "advance");
           if (!by.ok()) return Problem(400, by.error().message);
           if (*by) s.clock.Advance(**by);
           if (body.contains("set")) {
             auto t = TimeField(body, "set", s.clock.Now());
             if (!t.ok()) return Problem(400, t.error().message);
             s.clock.Set(*t);
           }
           if (auto st = RunDueSteps(s); !st.ok()) return FromStatus(st);
           return Reply::Raw({{"now", core::FormatRfc3339(s.clock.Now())}, {"polls", s.polls}});
         }));
  r.Get("/_sim/requests", Admin("/_sim/requests"),
        [](const httplib::Request&, SimState& s) { return Reply::Raw(s.log.ToJson()); });
  r.Delete("/_sim/requests", Admin("/_sim/requests"), [](const httplib::Request&, SimState& s) {
    s.log.Clear();
    return Reply::Raw({{"ok", true}});
  });
}

}  // namespace quell::sim
