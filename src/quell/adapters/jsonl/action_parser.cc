#include "quell/adapters/jsonl/action_parser.h"

#include <simdjson.h>

#include <string>

#include "quell/adapters/jsonl/observation_parser.h"

namespace quell::jsonl {
namespace {

core::Error Invalid(std::string message) {
  return core::MakeError(core::ErrorCode::kInvalidArgument, std::move(message));
}

core::Error Mistyped(std::string_view field, std::string_view expected) {
  return Invalid("field \"" + std::string(field) + "\" must be " + std::string(expected));
}

}  // namespace

const char kActionNeedsMessages[] =
    "operator actions (a line with \"action\") are applied only by quell replay -c FILE "
    "--messages, which has the store and channels they act on";

struct ActionParser::Impl {
  core::InputLimits limits;
  std::optional<core::WallTime> now;
  simdjson::dom::parser parser;
};

ActionParser::ActionParser(core::InputLimits limits, std::optional<core::WallTime> now)
    : impl_(std::make_unique<Impl>()) {
  impl_->limits = limits;
  impl_->now = now;
}
ActionParser::~ActionParser() = default;

bool ActionParser::IsAction(std::string_view record, size_t capacity) {
  if (record.find("\"action\"") == std::string_view::npos) return false;
  if (capacity < record.size() + ObservationParser::kPadding) return false;
  simdjson::dom::object object;
  if (impl_->parser.parse(record.data(), record.size(), false).get_object().get(object)) {
    return false;
  }
  simdjson::dom::element ignored;
  return !object["action"].get(ignored);
}

core::Status ActionParser::Parse(std::string_view record, size_t capacity,
                                 app::OperatorAction& out) {
  if (capacity < record.size() + ObservationParser::kPadding) {
    return Invalid("internal: record buffer lacks padding");
  }
  simdjson::dom::object object;
  if (auto error =
          impl_->parser.parse(record.data(), record.size(), false).get_object().get(object)) {
    return Invalid(std::string("bad JSON: ") + simdjson::error_message(error));
  }
  std::optional<std::string_view> at_text, key, action, by, hold_for, until, reason, match;
  for (auto [name, value] : object) {
    std::optional<std::string_view>* slot = nullptr;
    if (name == "at") slot = &at_text;
    if (name == "key") slot = &key;
    if (name == "action") slot = &action;
    if (name == "by") slot = &by;
    if (name == "for") slot = &hold_for;
    if (name == "until") slot = &until;
    if (name == "reason") slot = &reason;
    if (name == "match") slot = &match;
    if (slot == nullptr) continue;
    if (slot->has_value()) return Invalid("duplicate field \"" + std::string(name) + "\"");
    std::string_view text;
    if (value.get_string().get(text)) return Mistyped(name, "a string");
    *slot = text;
  }
  if (!action) return Invalid("missing field \"action\"");
  if (*action == "ack") {
    out.kind = app::OperatorAction::Kind::kAck;
  } else if (*action == "resolve") {
    out.kind = app::OperatorAction::Kind::kResolve;
  } else if (*action == "silence") {
    out.kind = app::OperatorAction::Kind::kSilence;
  } else {
    return Invalid("field \"action\" must be ack, resolve or silence, not \"" +
                   std::string(*action) + "\"");
  }
  if (!at_text) return Invalid("missing field \"at\"");
  auto at = core::ParseRfc3339(*at_text);
  if (!at) return Invalid("field \"at\": " + at.error().message);
  if (impl_->now && *at > *impl_->now + impl_->limits.max_future_skew) {
    return Invalid("field \"at\" is " + std::string(*at_text) + ", more than " +
                   core::FormatDuration(impl_->limits.max_future_skew) +
                   " ahead of now (limits.future_skew)");
  }
  out.at = *at;
  if (!key) return Invalid("missing field \"key\"");
  if (key->empty()) return Invalid("field \"key\" must not be empty");
  if (key->size() > impl_->limits.max_key_bytes) {
    return Invalid("field \"key\" is " + std::to_string(key->size()) + " bytes, more than " +
                   std::to_string(impl_->limits.max_key_bytes) + " (limits.key_bytes)");
  }
  out.key.assign(*key);
  if (!by) return Invalid("missing field \"by\"");
  if (by->empty()) return Invalid("field \"by\" must not be empty");
  out.by.assign(*by);

  const bool resolve = out.kind == app::OperatorAction::Kind::kResolve;
  const bool silence = out.kind == app::OperatorAction::Kind::kSilence;
  if (hold_for && !resolve) return Invalid("field \"for\" belongs to resolve only");
  if (until && !silence) return Invalid("field \"until\" belongs to silence only");
  if (reason && !silence) return Invalid("field \"reason\" belongs to silence only");
  if (match && !silence) return Invalid("field \"match\" belongs to silence only");
  out.hold_for.reset();
  if (hold_for) {
    auto duration = core::ParseDuration(*hold_for);
    if (!duration) return Invalid("field \"for\": " + duration.error().message);
    out.hold_for = *duration;
  }
  out.reason.assign(reason.value_or(""));
  out.until = {};
  // Without "match" a silence's key is a glob, as it always was in these lines.
  out.match = core::SilenceMatch::kGlob;
  if (match) {
    auto parsed = core::ParseSilenceMatch(*match);
    if (!parsed) {
      return Invalid("field \"match\" must be exact or glob, not \"" + std::string(*match) + "\"");
    }
    out.match = *parsed;
  }
  if (silence) {
    if (!until) return Invalid("missing field \"until\" (when the silence ends, RFC 3339)");
    auto parsed = core::ParseRfc3339(*until);
    if (!parsed) return Invalid("field \"until\": " + parsed.error().message);
    if (*parsed <= out.at) return Invalid("field \"until\" must be later than \"at\"");
    out.until = *parsed;
  }
  return {};
}

}  // namespace quell::jsonl
