#include "quell/adapters/infrai/json_fields.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace quell::infrai {
namespace {

core::Error Corrupt(std::string message) {
  return core::MakeError(core::ErrorCode::kCorrupt, std::move(message));
}

std::string NumberText(double value) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : std::string();
}

}  // namespace

std::optional<simdjson::dom::element> FindField(simdjson::dom::object object,
                                                std::span<const std::string> names) {
  for (const std::string& name : names) {
    simdjson::dom::element value;
    if (!object[name].get(value) && !value.is_null()) return value;
  }
  return std::nullopt;
}

std::optional<std::string> AsText(simdjson::dom::element value) {
  std::string_view text;
  if (!value.get_string().get(text)) return std::string(text);
  int64_t integer = 0;
  if (!value.get_int64().get(integer)) return std::to_string(integer);
  uint64_t unsigned_integer = 0;
  if (!value.get_uint64().get(unsigned_integer)) return std::to_string(unsigned_integer);
  double number = 0;
  if (!value.get_double().get(number)) return NumberText(number);
  bool flag = false;
  if (!value.get_bool().get(flag)) return std::string(flag ? "true" : "false");
  return std::nullopt;
}

core::Result<core::WallTime> AsTime(simdjson::dom::element value) {
  std::string_view text;
  if (!value.get_string().get(text)) return core::ParseRfc3339(text);
  double seconds = 0;
  if (value.get_double().get(seconds) || !std::isfinite(seconds) || seconds < 0) {
    return Corrupt("expected an RFC 3339 time or Unix seconds");
  }
  if (seconds > 1e11) seconds /= 1000;  // milliseconds: 1e11 s is the year 5138
  // RFC 3339 ends with the year 9999, and quell's times (int64 microseconds) soon after.
  constexpr double kYear10000 = 253402300800;
  if (seconds >= kYear10000) return Corrupt("a Unix time past the year 9999");
  return core::WallTime(core::Duration(static_cast<int64_t>(seconds * 1e6)));
}

core::Result<uint64_t> AsCount(simdjson::dom::element value) {
  uint64_t count = 0;
  if (!value.get_uint64().get(count)) return count;
  double number = 0;
  if (!value.get_double().get(number) && number >= 0 && number < 1.8e19 &&
      number == std::floor(number)) {
    return static_cast<uint64_t>(number);
  }
  std::string_view text;
  if (!value.get_string().get(text)) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
    if (ec == std::errc() && end == text.data() + text.size()) return count;
  }
  return Corrupt("expected a non-negative whole number");
}

core::Result<double> AsNumber(simdjson::dom::element value) {
  double number = 0;
  if (!value.get_double().get(number)) return number;
  std::string_view text;
  if (!value.get_string().get(text)) {
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
    if (text == "-Inf") return -std::numeric_limits<double>::infinity();
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec == std::errc() && end == text.data() + text.size()) return number;
  }
  return Corrupt("expected a number");
}

core::Result<core::Labels> AsLabels(simdjson::dom::element value) {
  simdjson::dom::object object;
  if (value.get_object().get(object)) return Corrupt("expected an object of tags");
  core::Labels labels;
  for (const auto field : object) {
    if (field.value.is_null()) continue;
    auto text = AsText(field.value);
    if (!text) {
      return Corrupt("tag \"" + std::string(field.key) + "\" is not a string or number");
    }
    labels.emplace_back(std::string(field.key), std::move(*text));
  }
  std::sort(labels.begin(), labels.end());
  return labels;
}

}  // namespace quell::infrai
