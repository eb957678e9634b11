#include "quell/adapters/jsonl/observation_parser.h"

#include <simdjson.h>

#include <string>

namespace quell::jsonl {
namespace {

using core::ErrorCode;
using core::MakeError;

core::Error Invalid(std::string message) {
  return MakeError(ErrorCode::kInvalidArgument, std::move(message));
}

core::Error BadJson(simdjson::error_code code) {
  return Invalid(std::string("bad JSON: ") + simdjson::error_message(code));
}

core::Error Mistyped(std::string_view field, std::string_view expected) {
  return Invalid("field \"" + std::string(field) + "\" must be " + std::string(expected));
}

enum Seen : unsigned { kAt = 1, kKey = 2, kUnhealthy = 4, kCondition = 8, kEvidence = 16 };

}  // namespace

const size_t ObservationParser::kPadding = simdjson::SIMDJSON_PADDING;

struct ObservationParser::Impl {
  // The DOM parser dispatches at run time to the best kernel the CPU has (the On-Demand
  // front end would be fixed at compile time to the portable fallback), and validates the
  // whole record, so a malformed line is always caught.
  simdjson::dom::parser parser;
};

ObservationParser::ObservationParser() : impl_(std::make_unique<Impl>()) {}
ObservationParser::~ObservationParser() = default;

core::Status ObservationParser::Parse(std::string_view record, size_t capacity,
                                      core::Observation& out) {
  if (capacity < record.size() + kPadding) {
    return Invalid("internal: record buffer lacks padding");
  }
  simdjson::dom::element root;
  if (auto error = impl_->parser.parse(record.data(), record.size(), false).get(root)) {
    return BadJson(error);
  }
  simdjson::dom::object object;
  if (root.get_object().get(object)) return Invalid("a record must be a JSON object");

  unsigned seen = 0;
  auto mark = [&seen](Seen bit, std::string_view name) -> core::Status {
    if ((seen & bit) != 0) return Invalid("duplicate field \"" + std::string(name) + "\"");
    seen |= bit;
    return {};
  };
  out.condition.clear();
  out.evidence.clear();
  for (auto [name, value] : object) {
    if (name == "at") {
      if (auto status = mark(kAt, name); !status) return status;
      std::string_view text;
      if (value.get_string().get(text)) return Mistyped(name, "an RFC 3339 timestamp string");
      auto at = core::ParseRfc3339(text);
      if (!at) return Invalid("field \"at\": " + at.error().message);
      out.at = *at;
    } else if (name == "key") {
      if (auto status = mark(kKey, name); !status) return status;
      std::string_view text;
      if (value.get_string().get(text)) return Mistyped(name, "a string");
      if (text.empty()) return Invalid("field \"key\" must not be empty");
      out.key.assign(text);
    } else if (name == "unhealthy") {
      if (auto status = mark(kUnhealthy, name); !status) return status;
      if (value.is_null()) {
        out.health = core::Health::kUnknown;
      } else {
        bool unhealthy = false;
        if (value.get_bool().get(unhealthy)) return Mistyped(name, "true, false or null");
        out.health = unhealthy ? core::Health::kUnhealthy : core::Health::kHealthy;
      }
    } else if (name == "condition") {
      if (auto status = mark(kCondition, name); !status) return status;
      std::string_view text;
      if (value.get_string().get(text)) return Mistyped(name, "a string");
      out.condition.assign(text);
    } else if (name == "evidence") {
      if (auto status = mark(kEvidence, name); !status) return status;
      if (!value.is_object()) return Mistyped(name, "an object");
      out.evidence = simdjson::minify(value);
    }
  }
  if ((seen & kAt) == 0) return Invalid("missing field \"at\"");
  if ((seen & kKey) == 0) return Invalid("missing field \"key\"");
  if ((seen & kUnhealthy) == 0) return Invalid("missing field \"unhealthy\" (true, false or null)");
  return {};
}

}  // namespace quell::jsonl
