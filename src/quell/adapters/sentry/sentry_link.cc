#include "quell/adapters/sentry/sentry_link.h"

#include <utility>
#include <vector>

namespace quell::sentry {
namespace {

core::Error Corrupt(const std::string& what) {
  return core::MakeError(core::ErrorCode::kCorrupt, "sentry: Link header: " + what);
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

struct Link {
  std::string url;
  std::vector<std::pair<std::string, std::string>> params;

  std::optional<std::string> Param(std::string_view name) const {
    for (const auto& [key, value] : params) {
      if (key == name) return value;
    }
    return std::nullopt;
  }
};

// One `name="value"` (or unquoted) parameter, `at` moved past it.
std::optional<std::pair<std::string, std::string>> ReadParam(std::string_view text, size_t& at) {
  const size_t eq = text.find('=', at);
  const size_t semi = text.find(';', at);
  if (eq == std::string_view::npos || (semi != std::string_view::npos && semi < eq)) {
    return std::nullopt;
  }
  std::string name(Trim(text.substr(at, eq - at)));
  size_t pos = eq + 1;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  std::string value;
  if (pos < text.size() && text[pos] == '"') {
    const size_t close = text.find('"', pos + 1);
    if (close == std::string_view::npos) return std::nullopt;
    value = std::string(text.substr(pos + 1, close - pos - 1));
    pos = close + 1;
  } else {
    size_t end = pos;
    while (end < text.size() && text[end] != ';' && text[end] != ',') ++end;
    value = std::string(Trim(text.substr(pos, end - pos)));
    pos = end;
  }
  at = pos;
  return std::pair{std::move(name), std::move(value)};
}

core::Result<std::vector<Link>> ReadLinks(std::string_view text) {
  std::vector<Link> links;
  size_t at = 0;
  while (true) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == ',')) ++at;
    if (at >= text.size()) break;
    if (text[at] != '<') return Corrupt("expected '<' at byte " + std::to_string(at));
    const size_t close = text.find('>', at);
    if (close == std::string_view::npos) return Corrupt("a '<' is never closed");
    Link link;
    link.url = std::string(text.substr(at + 1, close - at - 1));
    at = close + 1;
    while (true) {
      while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
      if (at >= text.size() || text[at] == ',') break;
      if (text[at] != ';') return Corrupt("expected ';' or ',' at byte " + std::to_string(at));
      ++at;
      auto param = ReadParam(text, at);
      if (!param) return Corrupt("a parameter without a value after byte " + std::to_string(at));
      link.params.push_back(std::move(*param));
    }
    links.push_back(std::move(link));
  }
  return links;
}

// The cursor= query parameter of `url`, as it stands (Sentry's cursors need no decoding).
std::string CursorOfUrl(std::string_view url) {
  const size_t query = url.find('?');
  if (query == std::string_view::npos) return {};
  size_t at = query + 1;
  while (at < url.size()) {
    size_t end = url.find('&', at);
    if (end == std::string_view::npos) end = url.size();
    const std::string_view pair = url.substr(at, end - at);
    if (pair.starts_with("cursor=")) return std::string(pair.substr(7));
    at = end + 1;
  }
  return {};
}

}  // namespace

core::Result<NextPage> ParseNextPage(std::string_view link_header) {
  NextPage next;
  if (Trim(link_header).empty()) return next;
  auto links = ReadLinks(link_header);
  if (!links) return links.error();
  for (const Link& link : *links) {
    if (link.Param("rel") != "next") continue;
    const std::optional<std::string> results = link.Param("results");
    if (!results) return Corrupt("the \"next\" link has no results attribute");
    if (*results != "true" && *results != "false") {
      return Corrupt("results=\"" + *results + "\": expected true or false");
    }
    if (*results == "false") return next;
    next.more = true;
    next.cursor = link.Param("cursor").value_or(CursorOfUrl(link.url));
    if (next.cursor.empty()) return Corrupt("the \"next\" link has more results but no cursor");
    return next;
  }
  return next;
}

}  // namespace quell::sentry
