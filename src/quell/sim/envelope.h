#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/text/time.h"

namespace quell::sim {

// The `metadata` block of every enveloped answer (INFRAI.md §0). vendor/cache_hit are constants:
// the simulator has no upstream vendor.
struct Metadata {
  std::string request_id;
  double cost_usd = 0;
  int64_t latency_ms = 0;
};

// {ok:true, data, error:null, metadata} [DOC S5].
nlohmann::json OkEnvelope(nlohmann::json data, const Metadata& meta);
// OkEnvelope(json::parse(data_json), meta).dump(), for a `data` value already serialised.
std::string OkEnvelopeText(std::string_view data_json, const Metadata& meta);
// {ok:false, data:null, error:{code,message,hint}, metadata} [SEC; data:null and metadata INF].
nlohmann::json ErrorEnvelope(const std::string& code, const std::string& message,
                             const std::string& hint, const Metadata& meta);

// What a route handler answers; the router wraps it in the envelope (or not, for discovery and
// the admin API) and applies output faults.
struct Reply {
  int status = 200;
  bool enveloped = true;
  nlohmann::json data;  // enveloped: the `data` value; otherwise the whole body
  // When not empty, the enveloped `data` value already serialised (then `data` is unused): the
  // listing pages are written without building a json tree.
  std::string data_text;
  std::string code;  // status >= 400 only
  std::string message;
  std::string hint;
  std::vector<std::pair<std::string, std::string>> headers;

  static Reply Ok(nlohmann::json data);
  static Reply OkText(std::string data_json);
  static Reply Fail(int status, std::string code, std::string message, std::string hint = "");
  static Reply Raw(nlohmann::json body, int status = 200);
};

// A UUID v7 (time-ordered, as S5 says of request ids) from the simulated clock and `rng`.
std::string NewRequestId(core::WallTime now, std::mt19937_64& rng);
// RFC 9110 IMF-fixdate, "Wed, 02 Dec 2026 09:00:00 GMT", for Retry-After.
std::string HttpDate(core::WallTime t);

}  // namespace quell::sim
