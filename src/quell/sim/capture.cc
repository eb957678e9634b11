#include "quell/sim/capture.h"

#include "quell/sim/group_json.h"

namespace quell::sim {
namespace {

using nlohmann::json;

// The last non-empty line of a Python-style traceback ("ValueError: bad input") names the error.
std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of(" \r\n\t");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return text.substr(start, end - start + 1);
}

}  // namespace

core::Result<CaptureOutcome> Capture(Store& store, const json& body, core::WallTime now) {
  if (!body.is_object()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument, "body must be a JSON object");
  }
  const json exception = body.contains("exception") ? body["exception"] : json(nullptr);
  std::string type;
  std::string message = StringField(body, "message", StringField(body, "text"));
  if (exception.is_object()) {
    type = StringField(exception, "type");
    if (message.empty()) message = StringField(exception, "message");
  } else if (exception.is_string()) {
    std::string line = LastLine(exception.get<std::string>());
    size_t colon = line.find(':');
    type = colon == std::string::npos ? line : line.substr(0, colon);
    if (message.empty()) message = line;
  }
  if (message.empty() && type.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "one of message, exception or text is required");
  }
  auto at = TimeField(body, "timestamp", now);
  if (!at.ok()) return at.error();

  std::vector<std::string> fingerprint;
  if (body.contains("fingerprint")) {
    const json& fp = body["fingerprint"];
    if (fp.is_array()) {
      for (const auto& part : fp)
        fingerprint.push_back(part.is_string() ? part.get<std::string>() : part.dump());
    } else if (fp.is_string()) {
      fingerprint.push_back(fp.get<std::string>());
    }
  }
  std::string key;
  if (!fingerprint.empty()) {
    key = "fp";
    for (const auto& part : fingerprint) key += "\x1f" + part;
  } else {
    key = "auto\x1f" + type + "\x1f" + message + "\x1f" + StringField(body, "code");
  }

  CaptureOutcome out;
  Group* g = store.FindByKey(key);
  if (g == nullptr) {
    Group fresh;
    fresh.id = GroupIdForKey(key);
    fresh.grouping_key = key;
    fresh.fingerprint = fingerprint;
    std::string title = StringField(body, "title");
    if (title.empty())
      title = type.empty() || message.rfind(type, 0) == 0 ? message : type + ": " + message;
    fresh.title = title;
    fresh.message = message;
    fresh.level = StringField(body, "level", "error");
    fresh.environment = StringField(body, "environment", "production");
    fresh.release = StringField(body, "release");
    fresh.service = StringField(body, "service", TagsField(body, "tags")["service"]);
    fresh.tags = TagsField(body, "tags");
    fresh.first_seen = *at;
    fresh.last_seen = *at;
    g = &store.Upsert(std::move(fresh));
    out.created = true;
  }
  out.reopened = g->resolved;
  Event e;
  e.event_id = store.NextEventId();
  e.timestamp = *at;
  e.message = message;
  e.exception = exception;
  if (e.exception.is_null() && body.contains("stack")) e.exception = body["stack"];
  e.context = body.contains("context") ? body["context"] : json(nullptr);
  e.tags = TagsField(body, "tags");
  out.event_id = e.event_id;
  out.error_group_id = g->id;
  store.AddEvent(*g, std::move(e));
  return out;
}

}  // namespace quell::sim
