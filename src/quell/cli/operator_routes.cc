#include "quell/cli/operator_routes.h"

#include <charconv>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "quell/cli/listing.h"

namespace quell::cli {
namespace {

using nlohmann::json;

app::OpsResponse Reply(int status, const json& body) {
  app::OpsResponse response;
  response.status = status;
  response.body = body.dump();
  return response;
}

app::OpsResponse ErrorReply(const core::Error& error) {
  int status = 500;
  switch (error.code) {
    case core::ErrorCode::kInvalidArgument:
      status = 400;
      break;
    case core::ErrorCode::kNotFound:
      status = 404;
      break;
    case core::ErrorCode::kRejected:
    case core::ErrorCode::kConflict:
      status = 409;
      break;
    case core::ErrorCode::kUnavailable:
    case core::ErrorCode::kTimeout:
      status = 503;
      break;
    default:
      break;
  }
  return Reply(status, json{{"error", error.message}});
}

app::OpsResponse BadRequest(const std::string& message) {
  return ErrorReply(core::MakeError(core::ErrorCode::kInvalidArgument, message));
}

// The request body as an object; an empty body is an empty object.
core::Result<json> BodyObject(const app::OpsRequest& request) {
  if (request.body.empty()) return json::object();
  json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument, "the body must be a JSON object");
  }
  return body;
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

}  // namespace

std::vector<app::OpsRoute> OperatorRoutes(app::OperatorCommands& commands, core::Clock& clock) {
  auto lock = std::make_shared<std::mutex>();
  app::OperatorCommands* ops = &commands;
  core::Clock* time = &clock;
  std::vector<app::OpsRoute> routes;
  auto add = [&](const char* method, const char* pattern, bool write,
                 std::function<app::OpsResponse(const app::OpsRequest&)> handler) {
    routes.push_back(app::OpsRoute{method, pattern, write, Serialised(lock, std::move(handler))});
  };

  add("GET", "^/v1/incidents$", false, [ops](const app::OpsRequest& request) {
    auto filter = request.query.find("status");
    const bool open_only = filter != request.query.end() && filter->second == "open";
    if (filter != request.query.end() && !open_only) {
      return BadRequest("status: only \"open\" filters incidents");
    }
    auto incidents = ops->ListIncidents(open_only);
    if (!incidents) return ErrorReply(incidents.error());
    json list = json::array();
    for (const core::Incident& in : *incidents) list.push_back(json::parse(IncidentJson(in)));
    return Reply(200, json{{"incidents", std::move(list)}});
  });

  add("POST", "^/v1/incidents/(.+)/ack$", true, [ops, time](const app::OpsRequest& request) {
    auto body = BodyObject(request);
    if (!body) return ErrorReply(body.error());
    auto by = StringField(*body, "by", Actor(request));
    if (!by) return ErrorReply(by.error());
    auto incident = ops->Ack(Capture(request), *by, time->Now());
    if (!incident) return ErrorReply(incident.error());
    return Reply(200, json{{"incident", json::parse(IncidentJson(*incident))}});
  });

  add("POST", "^/v1/incidents/(.+)/resolve$", true, [ops, time](const app::OpsRequest& request) {
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

  add("GET", "^/v1/silences$", false, [ops, time](const app::OpsRequest&) {
    auto silences = ops->ListSilences(time->Now());
    if (!silences) return ErrorReply(silences.error());
    json list = json::array();
    for (const core::Silence& s : *silences) list.push_back(json::parse(SilenceJson(s)));
    return Reply(200, json{{"silences", std::move(list)}});
  });

  add("POST", "^/v1/silences$", true, [ops, time](const app::OpsRequest& request) {
    auto body = BodyObject(request);
    if (!body) return ErrorReply(body.error());
    auto pattern = StringField(*body, "pattern", std::nullopt);
    if (!pattern) return ErrorReply(pattern.error());
    auto for_text = StringField(*body, "for", std::nullopt);
    if (!for_text) return ErrorReply(for_text.error());
    auto duration = core::ParseDuration(*for_text);
    if (!duration) return BadRequest("for: " + duration.error().message);
    auto reason = StringField(*body, "reason", std::nullopt);
    if (!reason) return ErrorReply(reason.error());
    auto by = StringField(*body, "by", Actor(request));
    if (!by) return ErrorReply(by.error());
    auto silence = ops->AddSilence(*pattern, *duration, *reason, *by, time->Now());
    if (!silence) return ErrorReply(silence.error());
    return Reply(201, json{{"silence", json::parse(SilenceJson(*silence))}});
  });

  add("DELETE", "^/v1/silences/([^/]+)$", true, [ops](const app::OpsRequest& request) {
    const std::string& text = Capture(request);
    uint64_t id = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return BadRequest("a silence id is a number, got \"" + text + "\"");
    }
    if (auto removed = ops->RemoveSilence(id); !removed) return ErrorReply(removed.error());
    return Reply(200, json{{"removed", id}});
  });

  add("GET", "^/v1/outbox/dead$", false, [ops](const app::OpsRequest&) {
    auto rows = ops->ListDead();
    if (!rows) return ErrorReply(rows.error());
    json list = json::array();
    for (const core::OutboxRow& row : *rows) list.push_back(json::parse(OutboxJson(row)));
    return Reply(200, json{{"rows", std::move(list)}});
  });

  add("POST", "^/v1/outbox/dead/([^/]+)/retry$", true, [ops, time](const app::OpsRequest& request) {
    auto status = ops->RetryDead(Capture(request), time->Now());
    if (!status) return ErrorReply(status.error());
    return Reply(200, json{{"idempotency_key", Capture(request)},
                           {"status", core::OutboxStatusName(*status)}});
  });

  add("DELETE", "^/v1/outbox/dead/([^/]+)$", true, [ops, time](const app::OpsRequest& request) {
    if (auto dropped = ops->DropDead(Capture(request), time->Now()); !dropped) {
      return ErrorReply(dropped.error());
    }
    return Reply(200, json{{"idempotency_key", Capture(request)}, {"status", "dropped"}});
  });
  return routes;
}

}  // namespace quell::cli
