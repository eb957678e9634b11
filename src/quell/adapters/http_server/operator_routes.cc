#include "quell/adapters/http_server/operator_routes.h"

#include <charconv>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "quell/adapters/text_output/listing_json.h"
#include "quell/adapters/text_output/timeline_json.h"
#include "quell/core/delivery/grouping.h"

namespace quell::http_server {
namespace {

using nlohmann::json;
using text_output::IncidentJson;
using text_output::OutboxJson;
using text_output::SilenceJson;

app::OpsResponse Reply(int status, const json& body) {
  app::OpsResponse response;
  response.status = status;
  response.body = body.dump();
  return response;
}

// The ops server's one error shape, {"error":{"code","message"}}, for a use case's error.
app::OpsResponse ErrorReply(const core::Error& error) {
  int status = 500;
  const char* code = "internal";
  switch (error.code) {
    case core::ErrorCode::kInvalidArgument:
      status = 400;
      code = "bad_request";
      break;
    case core::ErrorCode::kNotFound:
      status = 404;
      code = "not_found";
      break;
    case core::ErrorCode::kRejected:
    case core::ErrorCode::kConflict:
      status = 409;
      code = "conflict";
      break;
    case core::ErrorCode::kUnavailable:
    case core::ErrorCode::kTimeout:
      status = 503;
      code = "unavailable";
      break;
    default:
      break;
  }
  return Reply(status, json{{"error", json{{"code", code}, {"message", error.message}}}});
}

app::OpsResponse BadRequest(const std::string& message) {
  return ErrorReply(core::MakeError(core::ErrorCode::kInvalidArgument, message));
}

// The request body as an object. An empty body is an empty object, unless `shape` is given:
// then the body is required and the message shows what it should hold.
core::Result<json> BodyObject(const app::OpsRequest& request, const char* shape = nullptr) {
  const std::string route = request.method + " " + request.path;
  if (request.body.empty()) {
    if (shape == nullptr) return json::object();
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           route + " needs a JSON object body: " + shape);
  }
  json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           route + ": the body is not valid JSON");
  }
  if (!body.is_object()) {
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        route + ": the body must be a JSON object, got " + std::string(body.type_name()));
  }
  return body;
}

json DecisionJson(const core::LoggedDecision& d) {
  return json{{"generation", d.generation},      {"version", d.version},   {"poll_id", d.poll_id},
              {"at", core::FormatRfc3339(d.at)}, {"decision", d.decision}, {"reason", d.reason}};
}

json OutboxList(const std::vector<core::OutboxRow>& rows) {
  json list = json::array();
  for (const core::OutboxRow& row : rows) list.push_back(json::parse(OutboxJson(row)));
  return list;
}

// An incident's rows, each grouped one naming the group message that took it ("group_row",
// null for a row that was not grouped or waits for its group's next message).
json DetailOutboxList(const std::vector<core::OutboxRow>& rows) {
  json list = json::array();
  for (const core::OutboxRow& row : rows) {
    json item = json::parse(OutboxJson(row));
    item["group_row"] = row.group_row.empty() ? json(nullptr) : json(row.group_row);
    list.push_back(std::move(item));
  }
  return list;
}

// The group messages that took an incident's rows, without their payloads, each with
// "sent_at" (when it was recorded sent; null until then).
json GroupMessageList(const std::vector<core::OutboxRow>& rows) {
  json list = json::array();
  for (const core::OutboxRow& row : rows) {
    json item = json::parse(OutboxJson(row));
    item.erase("payload");
    // The group as the page's group route names it, so no reader strips the row key's prefix.
    item["group_key"] = std::string(core::GroupKeyOfRow(row));
    item["sent_at"] = row.status == core::OutboxStatus::kSent
                          ? json(core::FormatRfc3339(row.updated_at))
                          : json(nullptr);
    list.push_back(std::move(item));
  }
  return list;
}

// A string member of `body`; `fallback` when absent. kInvalidArgument when not a string.
core::Result<std::string> StringField(const json& body, const char* name,
                                      std::optional<std::string> fallback) {
  auto it = body.find(name);
  if (it == body.end()) {
    if (fallback) return *fallback;
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           std::string("the body needs \"") + name + "\"");
  }
  if (!it->is_string()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           std::string("\"") + name + "\" must be a string");
  }
  return it->get<std::string>();
}

std::string Actor(const app::OpsRequest& request) {
  return request.actor.empty() ? std::string("http") : request.actor;
}

const std::string& Capture(const app::OpsRequest& request) {
  static const std::string kNone;
  return request.captures.empty() ? kNone : request.captures.front();
}

// Runs `handler` under the shared lock; a JSON error in the handler is the client's.
app::OpsHandler Serialised(std::shared_ptr<std::mutex> lock,
                           std::function<app::OpsResponse(const app::OpsRequest&)> handler) {
  return [lock = std::move(lock), handler = std::move(handler)](const app::OpsRequest& request) {
    const std::lock_guard<std::mutex> guard(*lock);
    try {
      return handler(request);
    } catch (const json::exception& e) {
      return BadRequest(e.what());
    }
  };
}

// What a write addressed, for its log line: the route's capture, or for a new silence the
// key or pattern in its body (empty when the body has neither).
std::string WriteKey(const app::OpsRequest& request) {
  if (!request.captures.empty()) return request.captures.front();
  json body = json::parse(request.body, nullptr, false);
  if (!body.is_object()) return "";
  for (const char* name : {"key", "pattern"}) {
    if (body.contains(name) && body[name].is_string()) return body[name].get<std::string>();
  }
  return "";
}

// What a new silence selects: "key" is that key only (what the page's "Silence this incident"
// sends, since keys may hold `*`), "pattern" a key glob (what the field always meant). Exactly
// one of them; "match", when given (a listed silence posted back), must agree.
core::Result<std::pair<core::SilenceMatch, std::string>> SilenceTarget(const json& body) {
  const bool exact = body.contains("key");
  if (exact == body.contains("pattern")) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "give \"key\" (that key only) or \"pattern\" (a key glob, * matches "
                           "any run), one of them");
  }
  const core::SilenceMatch match = exact ? core::SilenceMatch::kExact : core::SilenceMatch::kGlob;
  if (auto it = body.find("match"); it != body.end()) {
    const auto named = it->is_string() ? core::ParseSilenceMatch(it->get<std::string>())
                                       : std::optional<core::SilenceMatch>();
    if (named != match) {
      return core::MakeError(core::ErrorCode::kInvalidArgument,
                             std::string("\"match\" must be \"") +
                                 std::string(core::SilenceMatchName(match)) + "\" with \"" +
                                 (exact ? "key" : "pattern") + "\"");
    }
  }
  auto text = StringField(body, exact ? "key" : "pattern", std::nullopt);
  if (!text) return text.error();
  return std::pair{match, std::move(*text)};
}

// Logs the write `handler` served: one http.write line with the action, the key, who asked
// and the answer's status, and the error message when it failed.
app::OpsHandler Logged(core::EventLog& log, const char* action, app::OpsHandler handler) {
  return [&log, action, handler = std::move(handler)](const app::OpsRequest& request) {
    app::OpsResponse response = handler(request);
    const std::string key = WriteKey(request);
    const int status = response.status;
    if (response.status < 400) {
      log.Log(core::LogLevel::kInfo, "http.write",
              {{"action", action}, {"key", key}, {"who", request.actor}, {"status", status}});
      return response;
    }
    json body = json::parse(response.body, nullptr, false);
    std::string error;
    if (body.is_object() && body.contains("error") && body["error"].is_object()) {
      error = body["error"].value("message", "");
    }
    log.Log(core::LogLevel::kWarn, "http.write",
            {{"action", action},
             {"key", key},
             {"who", request.actor},
             {"status", status},
             {"error", error}});
    return response;
  };
}

}  // namespace

std::vector<app::OpsRoute> OperatorRoutes(app::OperatorCommands& commands,
                                          app::OperatorQueries& queries, core::Clock& clock,
                                          core::EventLog& log) {
  auto lock = std::make_shared<std::mutex>();
  app::OperatorCommands* ops = &commands;
  app::OperatorQueries* reads = &queries;
  core::Clock* time = &clock;
  std::vector<app::OpsRoute> routes;
  auto add = [&](const char* method, const char* pattern, const char* write_action,
                 std::function<app::OpsResponse(const app::OpsRequest&)> handler) {
    app::OpsHandler served = Serialised(lock, std::move(handler));
    const bool write = write_action != nullptr;
    if (write) served = Logged(log, write_action, std::move(served));
    routes.push_back(app::OpsRoute{method, pattern, write, std::move(served)});
  };
  constexpr const char* kRead = nullptr;

  add("GET", "^/v1/incidents$", kRead, [reads](const app::OpsRequest& request) {
    auto filter = app::IncidentFilterFrom(request.query);
    if (!filter) return ErrorReply(filter.error());
    auto listed = reads->ListIncidents(*filter);
    if (!listed) return ErrorReply(listed.error());
    // The writer's objects verbatim: a parse and dump per row would cost more than the read.
    std::string body = "{\"incidents\":[";
    for (size_t i = 0; i < listed->incidents.size(); ++i) {
      const app::IncidentListItem& item = listed->incidents[i];
      if (i > 0) body += ',';
      body +=
          text_output::ListedIncidentJson(item.incident, item.severity, item.notifications_sent);
    }
    body += "],\"total\":" + std::to_string(listed->total) + "}";
    app::OpsResponse response;
    response.body = std::move(body);
    return response;
  });

  // Before the detail route, which would read ".../timeline" as part of a key; so, as with
  // "/ack" below, a key that itself ends in "/timeline" has no detail route of its own.
  add("GET", "^/v1/incidents/(.+)/timeline$", kRead, [reads](const app::OpsRequest& request) {
    auto limit = app::TimelineLimitFrom(request.query);
    if (!limit) return ErrorReply(limit.error());
    auto timeline = reads->Timeline(Capture(request), *limit);
    if (!timeline) return ErrorReply(timeline.error());
    app::OpsResponse response;
    response.body = text_output::TimelineJson(*timeline);
    return response;
  });

  // Keys may hold '/', so this matches the action paths' text too; those are POST only, and a
  // GET of ".../ack" reads the incident whose key ends in "/ack".
  add("GET", "^/v1/incidents/(.+)$", kRead, [reads](const app::OpsRequest& request) {
    auto history = app::HistoryLimitFrom(request.query);
    if (!history) return ErrorReply(history.error());
    auto detail = reads->Detail(Capture(request), *history);
    if (!detail) return ErrorReply(detail.error());
    json decisions = json::array();
    for (const core::LoggedDecision& d : detail->decisions) decisions.push_back(DecisionJson(d));
    return Reply(200, json{{"incident",
                            json::parse(text_output::ListedIncidentJson(
                                detail->incident, detail->severity, detail->notifications_sent))},
                           {"decisions", std::move(decisions)},
                           {"outbox", DetailOutboxList(detail->outbox)},
                           {"group_messages", GroupMessageList(detail->group_messages)}});
  });

  // A group of a grouped channel, for its page; the channel is one path segment (channel names
  // hold no '/'), the group key the rest.
  add("GET", "^/v1/groups/([^/]+)/(.+)$", kRead, [reads](const app::OpsRequest& request) {
    auto limit = app::GroupLimitFrom(request.query);
    if (!limit) return ErrorReply(limit.error());
    auto group = reads->Group(request.captures.at(0), request.captures.at(1), *limit);
    if (!group) return ErrorReply(group.error());
    json labels = json::object();
    for (const auto& [name, value] : group->labels) labels[name] = value;
    json members = json::array();
    for (const app::IncidentListItem& item : group->members) {
      members.push_back(json::parse(
          text_output::ListedIncidentJson(item.incident, item.severity, item.notifications_sent)));
    }
    return Reply(200, json{{"group",
                            {{"channel", group->channel},
                             {"key", group->group_key},
                             {"labels", std::move(labels)},
                             {"members", group->members.size()},
                             {"open", group->open}}},
                           {"members", std::move(members)},
                           {"messages", GroupMessageList(group->messages)}});
  });

  add("POST", "^/v1/incidents/(.+)/ack$", "ack", [ops, time](const app::OpsRequest& request) {
    auto body = BodyObject(request);
    if (!body) return ErrorReply(body.error());
    auto by = StringField(*body, "by", Actor(request));
    if (!by) return ErrorReply(by.error());
    auto incident = ops->Ack(Capture(request), *by, time->Now());
    if (!incident) return ErrorReply(incident.error());
    return Reply(200, json{{"incident", json::parse(IncidentJson(*incident))}});
  });

  add("POST", "^/v1/incidents/(.+)/resolve$", "resolve",
      [ops, time](const app::OpsRequest& request) {
        auto body = BodyObject(request);
        if (!body) return ErrorReply(body.error());
        auto by = StringField(*body, "by", Actor(request));
        if (!by) return ErrorReply(by.error());
        app::ResolveOptions options;
        if (body->contains("for")) {
          auto for_text = StringField(*body, "for", std::nullopt);
          if (!for_text) return ErrorReply(for_text.error());
          auto duration = core::ParseDuration(*for_text);
          if (!duration) return BadRequest("for: " + duration.error().message);
          options.hold_for = *duration;
        }
        if (auto it = body->find("upstream"); it != body->end()) {
          if (!it->is_boolean()) return BadRequest("\"upstream\" must be true or false");
          options.upstream = it->get<bool>();
        }
        auto resolved = ops->Resolve(Capture(request), *by, time->Now(), options);
        if (!resolved) return ErrorReply(resolved.error());
        json rows = json::array();
        for (const core::OutboxRow& row : resolved->outbox) {
          rows.push_back(json{{"idempotency_key", row.idempotency_key},
                              {"channel", row.channel},
                              {"status", core::OutboxStatusName(row.status)}});
        }
        return Reply(200, json{{"incident", json::parse(IncidentJson(resolved->incident))},
                               {"outbox", std::move(rows)},
                               {"upstream_groups", resolved->upstream_groups}});
      });

  add("GET", "^/v1/silences$", kRead, [ops, time](const app::OpsRequest&) {
    auto silences = ops->ListSilences(time->Now());
    if (!silences) return ErrorReply(silences.error());
    json list = json::array();
    for (const core::Silence& s : *silences) list.push_back(json::parse(SilenceJson(s)));
    return Reply(200, json{{"silences", std::move(list)}});
  });

  add("GET", "^/v1/silences/preview$", kRead, [reads](const app::OpsRequest& request) {
    auto query = app::SilencePreviewFrom(request.query);
    if (!query) return ErrorReply(query.error());
    auto preview = reads->PreviewSilence(*query);
    if (!preview) return ErrorReply(preview.error());
    const bool exact = query->match == core::SilenceMatch::kExact;
    return Reply(200, json{{"match", std::string(core::SilenceMatchName(query->match))},
                           {exact ? "key" : "pattern", query->pattern},
                           {"matched", preview->matched},
                           {"keys", preview->keys}});
  });

  add("POST", "^/v1/silences$", "silence.add", [ops, time](const app::OpsRequest& request) {
    auto body = BodyObject(request, R"({"key" or "pattern", "for": "2h", "reason", "by"?})");
    if (!body) return ErrorReply(body.error());
    auto target = SilenceTarget(*body);
    if (!target) return ErrorReply(target.error());
    auto for_text = StringField(*body, "for", std::nullopt);
    if (!for_text) return ErrorReply(for_text.error());
    auto duration = core::ParseDuration(*for_text);
    if (!duration) return BadRequest("for: " + duration.error().message);
    auto reason = StringField(*body, "reason", std::nullopt);
    if (!reason) return ErrorReply(reason.error());
    auto by = StringField(*body, "by", Actor(request));
    if (!by) return ErrorReply(by.error());
    auto silence = ops->AddSilence(target->first, std::move(target->second), *duration, *reason,
                                   *by, time->Now());
    if (!silence) return ErrorReply(silence.error());
    return Reply(201, json{{"silence", json::parse(SilenceJson(*silence))}});
  });

  add("DELETE", "^/v1/silences/([^/]+)$", "silence.remove", [ops](const app::OpsRequest& request) {
    const std::string& text = Capture(request);
    uint64_t id = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return BadRequest("a silence id is a number, got \"" + text + "\"");
    }
    if (auto removed = ops->RemoveSilence(id); !removed) return ErrorReply(removed.error());
    return Reply(200, json{{"removed", id}});
  });

  add("GET", "^/v1/outbox$", kRead, [reads](const app::OpsRequest& request) {
    auto filter = app::OutboxFilterFrom(request.query);
    if (!filter) return ErrorReply(filter.error());
    auto rows = reads->ListOutbox(*filter);
    if (!rows) return ErrorReply(rows.error());
    return Reply(200, json{{"rows", OutboxList(*rows)}});
  });

  add("GET", "^/v1/outbox/dead$", kRead, [reads](const app::OpsRequest& request) {
    auto filter = app::DeadFilterFrom(request.query);
    if (!filter) return ErrorReply(filter.error());
    auto rows = reads->ListOutbox(*filter);
    if (!rows) return ErrorReply(rows.error());
    return Reply(200, json{{"rows", OutboxList(*rows)}});
  });

  add("POST", "^/v1/outbox/dead/([^/]+)/retry$", "dead.retry",
      [ops, time](const app::OpsRequest& request) {
        auto status = ops->RetryDead(Capture(request), time->Now());
        if (!status) return ErrorReply(status.error());
        return Reply(200, json{{"idempotency_key", Capture(request)},
                               {"status", core::OutboxStatusName(*status)}});
      });

  add("DELETE", "^/v1/outbox/dead/([^/]+)$", "dead.drop",
      [ops, time](const app::OpsRequest& request) {
        if (auto dropped = ops->DropDead(Capture(request), time->Now()); !dropped) {
          return ErrorReply(dropped.error());
        }
        return Reply(200, json{{"idempotency_key", Capture(request)}, {"status", "dropped"}});
      });
  return routes;
}

}  // namespace quell::http_server
