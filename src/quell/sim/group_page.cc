// Writes listing pages straight into one string. nlohmann::json builds a tree of maps per group
// and then walks it to dump; for a page of 1,000 groups that was 12-25 ms of simulator CPU,
// more than the client spent parsing it (docs/benchmarks.md).
#include "quell/sim/group_page.h"

#include <charconv>

#include "quell/core/text/json_escape.h"
#include "quell/core/text/time.h"
#include "quell/core/text/utf8.h"

namespace quell::sim {
namespace {

// dump()'s bytes (ensure_ascii off): core's escaper with U+2028 and U+2029 kept as they are.
// dump() throws on invalid UTF-8 where core's escaper would replace it, so that is refused here.
bool AppendString(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80U) {
      ++i;
      continue;
    }
    const size_t n = core::Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  core::AppendJsonString(out, s, core::LineSeparators::kVerbatim);
  return true;
}

void AppendInt(std::string& out, int64_t v) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

void AppendTime(std::string& out, core::WallTime t) {
  // RFC 3339 text needs no escaping.
  out.push_back('"');
  out.append(core::FormatRfc3339(t));
  out.push_back('"');
}

}  // namespace

bool AppendGroupJson(std::string& out, const Group& g) {
  // Keys in the order nlohmann's std::map-backed object sorts them.
  out.append("{\"count\":");
  AppendInt(out, g.count);
  out.append(",\"environment\":");
  if (!AppendString(out, g.environment)) return false;
  out.append(",\"error_group_id\":");
  if (!AppendString(out, g.id)) return false;
  out.append(",\"fingerprint\":[");
  for (size_t k = 0; k < g.fingerprint.size(); ++k) {
    if (k > 0) out.push_back(',');
    if (!AppendString(out, g.fingerprint[k])) return false;
  }
  out.append("],\"first_seen\":");
  AppendTime(out, g.first_seen);
  out.append(g.resolved ? ",\"is_resolved\":true" : ",\"is_resolved\":false");
  out.append(",\"last_seen\":");
  AppendTime(out, g.last_seen);
  out.append(",\"level\":");
  if (!AppendString(out, g.level)) return false;
  out.append(",\"message\":");
  if (!AppendString(out, g.message)) return false;
  out.append(",\"release\":");
  if (!AppendString(out, g.release)) return false;
  out.append(",\"resolved_at\":");
  if (g.resolved_at) {
    AppendTime(out, *g.resolved_at);
  } else {
    out.append("null");
  }
  out.append(",\"service\":");
  if (!AppendString(out, g.service)) return false;
  out.append(g.resolved ? ",\"status\":\"resolved\"" : ",\"status\":\"unresolved\"");
  out.append(",\"tags\":{");
  bool first = true;
  for (const auto& [key, value] : g.tags) {
    if (!first) out.push_back(',');
    first = false;
    if (!AppendString(out, key)) return false;
    out.push_back(':');
    if (!AppendString(out, value)) return false;
  }
  out.append("},\"title\":");
  if (!AppendString(out, g.title)) return false;
  out.push_back('}');
  return true;
}

std::optional<std::string> GroupPageJson(const std::vector<const Group*>& groups,
                                         const std::optional<std::string>& next_cursor) {
  std::string out;
  // A generated group serialises to about 450 bytes; reserving avoids most regrowth.
  out.reserve(64 + groups.size() * 512);
  out.append("{\"groups\":[");
  for (size_t k = 0; k < groups.size(); ++k) {
    if (k > 0) out.push_back(',');
    if (!AppendGroupJson(out, *groups[k])) return std::nullopt;
  }
  out.append("],\"next_cursor\":");
  if (next_cursor) {
    if (!AppendString(out, *next_cursor)) return std::nullopt;
  } else {
    out.append("null");
  }
  out.push_back('}');
  return out;
}

}  // namespace quell::sim
