#include "quell/adapters/jsonl/observation_parser.h"

#include <simdjson.h>

#include <algorithm>
#include <string>

#include "quell/core/redact/redact_label.h"
#include "quell/core/text/json_escape.h"

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

// Re-emits evidence as minified JSON with every string redacted and every secret-looking
// field's value replaced, refusing nesting deeper than `max_depth`.
core::Status AppendRedacted(std::string& out, simdjson::dom::element value, size_t depth,
                            const ObservationParserOptions& options) {
  if (depth > options.limits.max_evidence_depth) {
    return Invalid("field \"evidence\" nests deeper than " +
                   std::to_string(options.limits.max_evidence_depth) +
                   " levels (limits.evidence_depth)");
  }
  simdjson::dom::object object;
  simdjson::dom::array array;
  std::string_view text;
  if (!value.get_object().get(object)) {
    out.push_back('{');
    bool first = true;
    for (auto [name, member] : object) {
      if (!first) out.push_back(',');
      first = false;
      core::AppendJsonString(out, name);
      out.push_back(':');
      if (core::LooksSecretKey(name)) {
        core::AppendJsonString(out, "[secret]");
      } else if (auto status = AppendRedacted(out, member, depth + 1, options); !status) {
        return status;
      }
    }
    out.push_back('}');
  } else if (!value.get_array().get(array)) {
    out.push_back('[');
    bool first = true;
    for (const simdjson::dom::element item : array) {
      if (!first) out.push_back(',');
      first = false;
      if (auto status = AppendRedacted(out, item, depth + 1, options); !status) return status;
    }
    out.push_back(']');
  } else if (!value.get_string().get(text)) {
    core::AppendJsonString(out, core::Redact(text, options.redact));
  } else {
    out += simdjson::minify(value);
  }
  return {};
}

// "labels":{"name":"value",...} into sorted labels; every value a string.
core::Status ParseLabels(simdjson::dom::element value, core::Labels& out) {
  simdjson::dom::object object;
  if (value.get_object().get(object)) return Mistyped("labels", "an object of strings");
  for (auto [name, member] : object) {
    std::string_view text;
    if (member.get_string().get(text)) {
      return Invalid("field \"labels\": the value of \"" + std::string(name) +
                     "\" must be a string");
    }
    out.emplace_back(std::string(name), std::string(text));
  }
  std::sort(out.begin(), out.end());
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].first == out[i - 1].first) {
      return Invalid("field \"labels\": duplicate label \"" + out[i].first + "\"");
    }
  }
  return {};
}

enum Seen : unsigned {
  kAt = 1,
  kKey = 2,
  kUnhealthy = 4,
  kCondition = 8,
  kEvidence = 16,
  kLabels = 32,
  kUpstreamCount = 64,
};

}  // namespace

const size_t ObservationParser::kPadding = simdjson::SIMDJSON_PADDING;

struct ObservationParser::Impl {
  ObservationParserOptions options;
  // The DOM parser dispatches at run time to the best kernel the CPU has (the On-Demand
  // front end would be fixed at compile time to the portable fallback), and validates the
  // whole record, so a malformed line is always caught.
  simdjson::dom::parser parser;
};

ObservationParser::ObservationParser(ObservationParserOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}
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
  const ObservationParserOptions& options = impl_->options;
  out.key.clear();
  out.condition.clear();
  out.evidence.clear();
  out.labels.clear();
  out.upstream_count.reset();
  for (auto [name, value] : object) {
    if (name == "at") {
      if (auto status = mark(kAt, name); !status) return status;
      std::string_view text;
      if (value.get_string().get(text)) return Mistyped(name, "an RFC 3339 timestamp string");
      auto at = core::ParseRfc3339(text);
      if (!at) return Invalid("field \"at\": " + at.error().message);
      if (options.now && *at > *options.now + options.limits.max_future_skew) {
        return Invalid("field \"at\" is " + std::string(text) + ", more than " +
                       core::FormatDuration(options.limits.max_future_skew) +
                       " ahead of now (limits.future_skew); a line from the future would make "
                       "every later observation of its key stale");
      }
      out.at = *at;
    } else if (name == "key") {
      if (auto status = mark(kKey, name); !status) return status;
      std::string_view text;
      if (value.get_string().get(text)) return Mistyped(name, "a string");
      if (text.empty()) return Invalid("field \"key\" must not be empty");
      if (text.size() > options.limits.max_key_bytes) {
        return Invalid("field \"key\" is " + std::to_string(text.size()) + " bytes, more than " +
                       std::to_string(options.limits.max_key_bytes) + " (limits.key_bytes)");
      }
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
      const std::string raw = simdjson::minify(value);
      if (raw.size() > options.limits.max_evidence_bytes) {
        return Invalid("field \"evidence\" is " + std::to_string(raw.size()) +
                       " bytes, more than " + std::to_string(options.limits.max_evidence_bytes) +
                       " (limits.evidence_bytes)");
      }
      if (auto status = AppendRedacted(out.evidence, value, 1, options); !status) return status;
    } else if (name == "labels") {
      if (auto status = mark(kLabels, name); !status) return status;
      if (auto status = ParseLabels(value, out.labels); !status) return status;
      core::RedactLabels(out.labels, options.redact);
    } else if (name == "upstream_count") {
      if (auto status = mark(kUpstreamCount, name); !status) return status;
      uint64_t count = 0;
      if (value.get_uint64().get(count)) return Mistyped(name, "a non-negative integer");
      out.upstream_count = count;
    }
  }
  if ((seen & kAt) == 0) return Invalid("missing field \"at\"");
  if ((seen & kKey) == 0 && options.require_key) return Invalid("missing field \"key\"");
  if ((seen & kUnhealthy) == 0) return Invalid("missing field \"unhealthy\" (true, false or null)");
  return {};
}

}  // namespace quell::jsonl
