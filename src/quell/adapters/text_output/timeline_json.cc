#include "quell/adapters/text_output/timeline_json.h"

#include <optional>

#include "quell/core/text/json_escape.h"

namespace quell::text_output {
namespace {

// Appends the members of one object; the first call opens it.
class Object {
 public:
  explicit Object(std::string& out) : out_(out) { out_ += '{'; }
  ~Object() { out_ += '}'; }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  Object& Str(const char* name, const std::string& value) {
    Name(name);
    core::AppendJsonString(out_, value);
    return *this;
  }
  Object& Num(const char* name, std::optional<uint64_t> value) {
    Name(name);
    out_ += value ? std::to_string(*value) : "null";
    return *this;
  }
  Object& Time(const char* name, const std::optional<core::WallTime>& at) {
    Name(name);
    if (!at) {
      out_ += "null";
      return *this;
    }
    out_ += '"';
    core::AppendRfc3339(out_, *at);
    out_ += '"';
    return *this;
  }

 private:
  void Name(const char* name) {
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '"';
    out_ += name;
    out_ += "\":";
  }
  std::string& out_;
  bool first_ = true;
};

// Appends `"name":[...]` with one object per item, written by `write`.
template <typename T, typename Write>
void List(std::string& out, const char* name, const std::vector<T>& items, const Write& write) {
  out += ",\"";
  out += name;
  out += "\":[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    Object object(out);
    write(object, items[i]);
  }
  out += ']';
}

}  // namespace

std::string TimelineJson(const app::IncidentTimeline& timeline) {
  std::string out = "{\"key\":";
  core::AppendJsonString(out, timeline.key);
  List(out, "observations", timeline.observations,
       [](Object& o, const app::TimelineObservation& ob) {
         o.Time("at", ob.at)
             .Str("poll_id", ob.poll_id)
             .Num("generation", ob.generation)
             .Str("health", ob.health)
             .Str("decision", ob.decision)
             .Str("reason", ob.reason)
             .Num("version", ob.version);
       });
  List(out, "attempts", timeline.attempts, [](Object& o, const core::LoggedAttempt& a) {
    o.Time("at", a.at)
        .Str("idempotency_key", a.idempotency_key)
        .Str("channel", a.channel)
        .Num("generation", a.generation)
        .Str("transition", a.transition)
        .Num("attempt", a.attempt)
        .Str("outcome", a.outcome)
        .Str("detail", a.detail);
  });
  List(out, "generations", timeline.generations, [](Object& o, const core::GenerationSpan& g) {
    o.Num("generation", g.generation)
        .Time("opened_at", g.opened_at)
        .Time("resolved_at", g.resolved_at)
        .Time("acked_at", g.acked_at)
        .Str("acked_by", g.acked_by);
  });
  out += '}';
  return out;
}

}  // namespace quell::text_output
