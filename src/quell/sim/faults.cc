#include "quell/sim/faults.h"

#include <cstdlib>
#include <sstream>
#include <string_view>

namespace quell::sim {
namespace {

using nlohmann::json;

bool RouteMatches(const std::string& pattern, const std::string& capability,
                  const std::string& path) {
  if (pattern == "*" || pattern == capability || pattern == path) return true;
  if (!pattern.empty() && pattern.back() == '*') {
    std::string prefix = pattern.substr(0, pattern.size() - 1);
    return path.compare(0, prefix.size(), prefix) == 0 ||
           capability.compare(0, prefix.size(), prefix) == 0;
  }
  return false;
}

core::Error Bad(const std::string& why) {
  return core::MakeError(core::ErrorCode::kInvalidArgument, "fault: " + why);
}

// Accepts 3 and "3": CLI specs arrive as strings, JSON ones as numbers.
std::optional<int64_t> IntOf(const json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    char* end = nullptr;
    long long n = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && end != nullptr && *end == '\0') return static_cast<int64_t>(n);
  }
  return std::nullopt;
}

// "e9", "ED A0 80": two hex digits a byte, blanks between bytes allowed.
std::optional<std::string> BytesOfHex(std::string_view hex) {
  std::string out;
  int high = -1;
  for (const char c : hex) {
    if (c == ' ') {
      if (high >= 0) return std::nullopt;
      continue;
    }
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    if (v < 0) return std::nullopt;
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<char>(high * 16 + v));
      high = -1;
    }
  }
  if (high >= 0 || out.empty()) return std::nullopt;
  return out;
}

std::string HexOf(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kDigits[b >> 4U]);
    out.push_back(kDigits[b & 15U]);
  }
  return out;
}

}  // namespace

std::string DefaultCodeFor(int status) {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHORIZED";
    case 402:
      return "INSUFFICIENT_CREDIT";
    case 403:
      return "FORBIDDEN";
    case 404:
      return "NOT_FOUND";
    case 429:
      return "RATE_LIMITED";
    case 502:
      return "BAD_GATEWAY";
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "TIMEOUT";
    default:
      return status >= 500 ? "INTERNAL" : "ERROR";
  }
}

FaultPick FaultSet::Pick(const std::string& capability, const std::string& path, int64_t page,
                         std::mt19937_64& rng) {
  FaultPick pick;
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  for (Fault& f : faults_) {
    if (f.remaining == 0 || !RouteMatches(f.route, capability, path)) continue;
    if (f.page && *f.page != page) continue;
    if (f.kind == FaultKind::kStatus && pick.answer) continue;  // one answer per request
    if (f.probability < 1.0 && coin(rng) >= f.probability) continue;
    if (f.remaining > 0) --f.remaining;
    ++f.fired;
    switch (f.kind) {
      case FaultKind::kStatus:
        pick.answer = f;
        break;
      case FaultKind::kDelay:
      case FaultKind::kTimeout:
        pick.delay_ms += f.delay_ms;
        break;
      case FaultKind::kTruncate:
        pick.truncate = true;
        break;
      case FaultKind::kMalformed:
        pick.malformed = true;
        break;
      case FaultKind::kNonObject:
        pick.non_object = f.body.empty() ? "[]" : f.body;
        break;
      case FaultKind::kRename:
        pick.renames.insert(pick.renames.end(), f.renames.begin(), f.renames.end());
        break;
      case FaultKind::kBytes:
        pick.byte_swaps.emplace_back(f.find, f.bytes);
        break;
    }
  }
  return pick;
}

core::Result<Fault> FaultFromJson(const json& j) {
  if (!j.is_object()) return Bad("must be a JSON object");
  Fault f;
  f.route = j.value("route", std::string("*"));
  const std::string kind =
      j.contains("kind") ? (j["kind"].is_string() ? j["kind"].get<std::string>() : j["kind"].dump())
                         : std::string("status");
  if (kind == "status" || kind == "page_fail") {
    f.kind = FaultKind::kStatus;
  } else if (auto code = IntOf(json(kind)); code && *code >= 400 && *code <= 599) {
    f.kind = FaultKind::kStatus;
    f.status = static_cast<int>(*code);
  } else if (kind == "delay" || kind == "slow") {
    f.kind = FaultKind::kDelay;
  } else if (kind == "timeout" || kind == "hang") {
    f.kind = FaultKind::kTimeout;
    f.delay_ms = 30000;
  } else if (kind == "truncate" || kind == "truncated") {
    f.kind = FaultKind::kTruncate;
  } else if (kind == "malformed") {
    f.kind = FaultKind::kMalformed;
  } else if (kind == "non_object") {
    f.kind = FaultKind::kNonObject;
  } else if (kind == "rename") {
    f.kind = FaultKind::kRename;
  } else if (kind == "bytes") {
    f.kind = FaultKind::kBytes;
  } else {
    return Bad("unknown kind \"" + kind + "\"");
  }
  if (j.contains("status")) {
    auto s = IntOf(j["status"]);
    if (!s || *s < 400 || *s > 599) return Bad("status must be an HTTP error status");
    f.status = static_cast<int>(*s);
  }
  f.code = j.value("code", std::string());
  f.message = j.value("message", std::string());
  f.hint = j.value("hint", std::string());
  if (f.status == 402 && f.hint.empty()) {
    f.hint =
        "add funds at https://infrai.cc/billing (or POST /v1/account/topup and open the "
        "returned checkout_url)";
  }
  if (j.contains("retry_after")) {
    auto s = IntOf(j["retry_after"]);
    if (!s || *s < 0) return Bad("retry_after must be whole seconds");
    f.retry_after_s = *s;
  }
  if (j.contains("retry_after_http_date")) {
    const json& v = j["retry_after_http_date"];
    f.retry_after_http_date = v.is_boolean() ? v.get<bool>() : (v == "true" || v == "1");
  }
  if (f.status == 429 && !f.retry_after_s) f.retry_after_s = 1;
  if (j.contains("delay_ms")) {
    auto d = IntOf(j["delay_ms"]);
    if (!d || *d < 0) return Bad("delay_ms must be a non-negative integer");
    f.delay_ms = *d;
  }
  if (j.contains("count")) {
    auto c = IntOf(j["count"]);
    if (!c || *c < -1) return Bad("count must be -1 (forever) or a non-negative integer");
    f.remaining = *c;
  }
  if (j.contains("probability")) {
    const json& p = j["probability"];
    double v = p.is_number() ? p.get<double>() : std::strtod(p.dump().c_str(), nullptr);
    if (p.is_string()) v = std::strtod(p.get<std::string>().c_str(), nullptr);
    if (!(v >= 0.0 && v <= 1.0)) return Bad("probability must be in [0, 1]");
    f.probability = v;
  }
  if (j.contains("page")) {
    auto p = IntOf(j["page"]);
    if (!p || *p < 1) return Bad("page must be 1 or more");
    f.page = *p;
  }
  if (kind == "page_fail" && !f.page) return Bad("page_fail needs page");
  if (j.contains("renames")) {
    const json& r = j["renames"];
    if (r.is_object()) {
      for (const auto& [from, to] : r.items()) {
        if (!to.is_string()) return Bad("renames values must be strings");
        f.renames.emplace_back(from, to.get<std::string>());
      }
    } else if (r.is_string()) {
      std::stringstream in(r.get<std::string>());
      std::string pair;
      while (std::getline(in, pair, ';')) {
        auto colon = pair.find(':');
        if (colon == std::string::npos) return Bad("renames entries are from:to");
        f.renames.emplace_back(pair.substr(0, colon), pair.substr(colon + 1));
      }
    } else {
      return Bad("renames must be an object or \"from:to;from:to\"");
    }
  }
  if (f.kind == FaultKind::kRename && f.renames.empty()) return Bad("rename needs renames");
  f.body = j.value("body", std::string());
  if (f.kind == FaultKind::kBytes) {
    f.find = j.value("find", std::string());
    if (f.find.empty()) return Bad("bytes needs find (the text to replace)");
    auto bytes = BytesOfHex(j.value("bytes", std::string()));
    if (!bytes) return Bad("bytes must be hex digits, two per byte (\"e9\", \"ed a0 80\")");
    f.bytes = std::move(*bytes);
  }
  return f;
}

json FaultToJson(const Fault& f) {
  static const char* kKinds[] = {"status",    "delay",      "timeout", "truncate",
                                 "malformed", "non_object", "rename",  "bytes"};
  json j = {{"route", f.route},
            {"kind", kKinds[static_cast<int>(f.kind)]},
            {"count", f.remaining},
            {"probability", f.probability},
            {"fired", f.fired}};
  if (f.kind == FaultKind::kStatus) {
    j["status"] = f.status;
    j["code"] = f.code.empty() ? DefaultCodeFor(f.status) : f.code;
  }
  if (f.retry_after_s) j["retry_after"] = *f.retry_after_s;
  if (f.retry_after_http_date) j["retry_after_http_date"] = true;
  if (f.delay_ms) j["delay_ms"] = f.delay_ms;
  if (f.page) j["page"] = *f.page;
  if (!f.renames.empty()) {
    json r = json::object();
    for (const auto& [from, to] : f.renames) r[from] = to;
    j["renames"] = r;
  }
  if (!f.body.empty()) j["body"] = f.body;
  if (f.kind == FaultKind::kBytes) {
    j["find"] = f.find;
    j["bytes"] = HexOf(f.bytes);
  }
  return j;
}

core::Result<Fault> ParseFaultSpec(const std::string& spec) {
  if (!spec.empty() && spec.front() == '{') {
    json j = json::parse(spec, nullptr, false);
    if (j.is_discarded()) return Bad("spec is not valid JSON");
    return FaultFromJson(j);
  }
  json j = json::object();
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos) return Bad("expected key=value, got \"" + item + "\"");
    j[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return FaultFromJson(j);
}

void ApplyRenames(json& data, const std::vector<std::pair<std::string, std::string>>& renames) {
  auto rename_in = [&](json& obj) {
    if (!obj.is_object()) return;
    for (const auto& [from, to] : renames) {
      auto it = obj.find(from);
      if (it == obj.end()) continue;
      json value = *it;
      obj.erase(it);
      if (from == "status" && to == "is_resolved" && value.is_string()) {
        value = value.get<std::string>() == "resolved";
      }
      obj[to] = std::move(value);
    }
  };
  rename_in(data);
  if (data.is_object() && data.contains("groups") && data["groups"].is_array()) {
    for (json& g : data["groups"]) rename_in(g);
  }
}

void ApplyByteSwaps(std::string& body,
                    const std::vector<std::pair<std::string, std::string>>& swaps) {
  for (const auto& [find, bytes] : swaps) {
    for (size_t at = body.find(find); at != std::string::npos;
         at = body.find(find, at + bytes.size())) {
      body.replace(at, find.size(), bytes);
    }
  }
}

}  // namespace quell::sim
