#include "quell/sim/envelope.h"

#include <cstdio>
#include <ctime>

namespace quell::sim {

using nlohmann::json;

namespace {

json MetadataJson(const Metadata& meta) {
  return json{{"cost_usd", meta.cost_usd},
              {"latency_ms", meta.latency_ms},
              {"vendor", "infrai"},
              {"cache_hit", false},
              {"request_id", meta.request_id}};
}

}  // namespace

json OkEnvelope(json data, const Metadata& meta) {
  return json{{"ok", true},
              {"data", std::move(data)},
              {"error", nullptr},
              {"metadata", MetadataJson(meta)}};
}

std::string OkEnvelopeText(std::string_view data_json, const Metadata& meta) {
  // The keys in dump()'s sorted order: data, error, metadata, ok.
  const std::string metadata = MetadataJson(meta).dump();
  std::string out;
  out.reserve(data_json.size() + metadata.size() + 48);
  out.append("{\"data\":").append(data_json).append(",\"error\":null,\"metadata\":");
  out.append(metadata).append(",\"ok\":true}");
  return out;
}

json ErrorEnvelope(const std::string& code, const std::string& message, const std::string& hint,
                   const Metadata& meta) {
  json error = {{"code", code}, {"message", message}};
  error["hint"] = hint.empty() ? json(nullptr) : json(hint);
  return json{{"ok", false},
              {"data", nullptr},
              {"error", std::move(error)},
              {"metadata", MetadataJson(meta)}};
}

Reply Reply::Ok(json data) {
  Reply r;
  r.data = std::move(data);
  return r;
}

Reply Reply::OkText(std::string data_json) {
  Reply r;
  r.data_text = std::move(data_json);
  return r;
}

Reply Reply::Fail(int status, std::string code, std::string message, std::string hint) {
  Reply r;
  r.status = status;
  r.code = std::move(code);
  r.message = std::move(message);
  r.hint = std::move(hint);
  return r;
}

Reply Reply::Raw(json body, int status) {
  Reply r;
  r.status = status;
  r.enveloped = false;
  r.data = std::move(body);
  return r;
}

std::string NewRequestId(core::WallTime now, std::mt19937_64& rng) {
  auto ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count());
  uint64_t a = rng();
  uint64_t b = rng();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-7%03llx-%04llx-%012llx",
                static_cast<unsigned long long>((ms >> 16) & 0xffffffffULL),
                static_cast<unsigned long long>(ms & 0xffffULL),
                static_cast<unsigned long long>(a & 0xfffULL),
                static_cast<unsigned long long>(0x8000ULL | ((a >> 12) & 0x3fffULL)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string HttpDate(core::WallTime t) {
  std::time_t secs = static_cast<std::time_t>(
      std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

}  // namespace quell::sim
