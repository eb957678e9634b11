#include "quell/sim/router.h"

#include <httplib.h>

#include <chrono>
#include <string>

#include "quell/sim/scenario.h"

namespace quell::sim {
namespace {

using nlohmann::json;

// Infrai keys look like ifr_... or ifr_pk_proj_... [DOC S1-S7]; nothing else is accepted.
bool Authorized(const httplib::Request& req) {
  const std::string value = req.get_header_value("Authorization");
  const std::string prefix = "Bearer ifr_";
  return value.size() > prefix.size() && value.compare(0, prefix.size(), prefix) == 0;
}

Reply FaultReply(const Fault& f, core::WallTime now) {
  std::string code = f.code.empty() ? DefaultCodeFor(f.status) : f.code;
  std::string message =
      f.message.empty() ? "simulated fault: HTTP " + std::to_string(f.status) : f.message;
  Reply r = Reply::Fail(f.status, code, message, f.hint);
  if (f.retry_after_s) {
    r.headers.emplace_back("Retry-After",
                           f.retry_after_http_date
                               ? HttpDate(now + std::chrono::seconds(*f.retry_after_s))
                               : std::to_string(*f.retry_after_s));
  }
  return r;
}

std::string IdempotencyKeyOf(const httplib::Request& req) {
  std::string key = req.get_header_value("Idempotency-Key");
  if (!key.empty() || req.method != "POST" || req.body.empty() || req.body.front() != '{') {
    return key;
  }
  json body = json::parse(req.body, nullptr, false);
  if (body.is_object() && body.contains("idempotency_key") && body["idempotency_key"].is_string()) {
    return body["idempotency_key"].get<std::string>();
  }
  return "";
}

}  // namespace

int64_t PageOfCursor(const std::string& cursor) {
  // Cursors are "p<page>.o<offset>"; see routes_errors.cc.
  if (cursor.size() < 2 || cursor[0] != 'p') return 1;
  return std::strtoll(cursor.c_str() + 1, nullptr, 10);
}

void Router::Get(const std::string& pattern, RouteInfo info, Handler handler) {
  server_.Get(pattern, [this, info = std::move(info), handler = std::move(handler)](
                           const httplib::Request& req, httplib::Response& res) {
    Serve(info, handler, req, res);
  });
}

void Router::Post(const std::string& pattern, RouteInfo info, Handler handler) {
  server_.Post(pattern, [this, info = std::move(info), handler = std::move(handler)](
                            const httplib::Request& req, httplib::Response& res) {
    Serve(info, handler, req, res);
  });
}

void Router::Delete(const std::string& pattern, RouteInfo info, Handler handler) {
  server_.Delete(pattern, [this, info = std::move(info), handler = std::move(handler)](
                              const httplib::Request& req, httplib::Response& res) {
    Serve(info, handler, req, res);
  });
}

void Router::Serve(const RouteInfo& info, const Handler& handler, const httplib::Request& req,
                   httplib::Response& res) {
  const auto started = std::chrono::steady_clock::now();
  FaultPick pick;
  int status = 500;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  try {
    std::lock_guard lock(state_.mu);
    Metadata meta{NewRequestId(state_.clock.Now(), state_.rng), info.cost_usd, 0};
    LoggedRequest entry;
    entry.method = req.method;
    entry.path = req.path;
    entry.route = req.method + " " + info.templ;
    entry.authorization = FingerprintSecret(req.get_header_value("Authorization"));
    const std::string idem_key = info.admin ? "" : IdempotencyKeyOf(req);
    entry.idempotency_key = idem_key;
    const std::string idem_scope = req.method + " " + req.path;

    if (auto s = RunDueSteps(state_); !s.ok()) entry.note = "timeline: " + s.error().message;
    Reply reply;
    bool answered = false;
    if (!info.admin) {
      if (info.requires_auth && !Authorized(req)) {
        reply = Reply::Fail(401, "UNAUTHORIZED",
                            "missing or invalid API key; send Authorization: Bearer ifr_...");
        answered = true;
      } else {
        const std::string cursor = req.get_param_value("cursor");
        pick = state_.faults.Pick(info.capability, req.path, PageOfCursor(cursor), state_.rng);
        if (pick.answer) {
          reply = FaultReply(*pick.answer, state_.clock.Now());
          entry.note = "fault " + std::to_string(pick.answer->status);
          answered = true;
        }
      }
    }
    const IdempotencyCache::Entry* replay =
        answered || idem_key.empty() || req.method != "POST"
            ? nullptr
            : state_.idempotency.Find(idem_scope, idem_key, state_.clock.Now());
    if (replay != nullptr) {
      status = replay->status;
      body = replay->body;
      headers.emplace_back("Idempotent-Replayed", "true");
      entry.note = "replay";
    } else {
      if (!answered) {
        if (info.poll && !req.has_param("cursor")) {
          state_.polls += 1;
          if (state_.config.advance_per_poll && state_.polls > 1) {
            state_.clock.Advance(*state_.config.advance_per_poll);
          }
          if (auto s = RunDueSteps(state_); !s.ok()) entry.note = "timeline: " + s.error().message;
        }
        reply = handler(req, state_);
      }
      meta.latency_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - started)
                            .count();
      if (!reply.data_text.empty() && !pick.renames.empty()) {
        // Renames rewrite the tree; a fault is rare enough to afford parsing the text back.
        reply.data = json::parse(reply.data_text);
        reply.data_text.clear();
      }
      if (reply.enveloped && reply.status < 400 && !reply.data_text.empty()) {
        body = OkEnvelopeText(reply.data_text, meta);
      } else {
        json out;
        if (!reply.enveloped) {
          out = std::move(reply.data);
        } else if (reply.status >= 400) {
          out = ErrorEnvelope(reply.code, reply.message, reply.hint, meta);
        } else {
          if (!pick.renames.empty()) ApplyRenames(reply.data, pick.renames);
          out = OkEnvelope(std::move(reply.data), meta);
        }
        body = out.dump();
      }
      status = reply.status;
      headers = std::move(reply.headers);
      if (!idem_key.empty() && req.method == "POST" && status < 300 && !answered) {
        state_.idempotency.Put(idem_scope, idem_key, {status, body, state_.clock.Now()});
      }
    }
    entry.status = status;
    state_.log.Record(std::move(entry));
  } catch (const std::exception& e) {
    status = 500;
    body = ErrorEnvelope("INTERNAL", std::string("simulator error: ") + e.what(), "", Metadata{})
               .dump();
  }

  // Slow answers and hangs wait outside the lock so other requests keep flowing.
  if (pick.delay_ms > 0) state_.sleeper.SleepFor(std::chrono::milliseconds(pick.delay_ms));
  if (pick.truncate) body.resize(body.size() / 2);
  if (pick.malformed) body = "{\"ok\": true, \"data\": {\"groups\": [{\"error_group_id\": grp_";
  if (pick.non_object) body = *pick.non_object;
  ApplyByteSwaps(body, pick.byte_swaps);

  res.status = status;
  for (const auto& [name, value] : headers) res.set_header(name, value);
  res.set_content(body, "application/json");
}

}  // namespace quell::sim
