#include "quell/adapters/templates/template_check.h"

#include <algorithm>
#include <string>
#include <vector>

#include "quell/adapters/templates/incident_template_data.h"

namespace quell::templates {
namespace {

size_t LineAt(std::string_view text, size_t offset) {
  return 1 + static_cast<size_t>(std::count(
                 text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

core::Error TagError(std::string_view text, size_t offset, const std::string& what) {
  return core::MakeError(core::ErrorCode::kInvalidArgument,
                         "line " + std::to_string(LineAt(text, offset)) + ": " + what);
}

bool KnownName(std::string_view name) {
  if (name == ".") return true;
  const std::vector<std::string_view>& names = IncidentContextNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

core::Status CheckTemplateSyntax(std::string_view text) {
  std::vector<std::pair<std::string, size_t>> open;  // section name, where it opened
  size_t at = 0;
  while ((at = text.find("{{", at)) != std::string_view::npos) {
    const bool triple = text.substr(at, 3) == "{{{";
    const std::string_view closer = triple ? "}}}" : "}}";
    const size_t inner = at + (triple ? 3 : 2);
    const size_t end = text.find(closer, inner);
    if (end == std::string_view::npos) return TagError(text, at, "a tag is not closed");
    std::string_view tag = Trim(text.substr(inner, end - inner));
    const size_t next = end + closer.size();
    const char sigil = tag.empty() || triple ? '\0' : tag.front();
    if (sigil == '!') {
      at = next;
      continue;
    }
    if (sigil == '>') return TagError(text, at, "partials ({{>name}}) are not supported");
    if (sigil == '=') return TagError(text, at, "changing delimiters is not supported");
    if (sigil == '#' || sigil == '^' || sigil == '/' || sigil == '&') tag = Trim(tag.substr(1));
    if (tag.empty()) return TagError(text, at, "an empty tag");
    if (!KnownName(tag)) {
      return TagError(text, at, "unknown field \"" + std::string(tag) + "\"");
    }
    if (sigil == '#' || sigil == '^') open.emplace_back(tag, at);
    if (sigil == '/') {
      if (open.empty() || open.back().first != tag) {
        return TagError(text, at,
                        "{{/" + std::string(tag) + "}} closes " +
                            (open.empty() ? std::string("no open section")
                                          : "section \"" + open.back().first + "\""));
      }
      open.pop_back();
    }
    at = next;
  }
  if (!open.empty()) {
    return TagError(text, open.back().second,
                    "section \"" + open.back().first + "\" is never closed");
  }
  return {};
}

}  // namespace quell::templates
