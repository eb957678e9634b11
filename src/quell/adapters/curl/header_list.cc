#include "quell/adapters/curl/header_list.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace quell::curl {
namespace {

// RFC 9110 tchar.
bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// No line break or NUL (checked byte by byte: find_first_of of a set calls memchr per byte).
bool IsSingleLine(std::string_view value) {
  return std::none_of(value.begin(), value.end(),
                      [](char c) { return c == '\r' || c == '\n' || c == '\0'; });
}

bool Append(HeaderList& list, const std::string& line) {
  curl_slist* head = curl_slist_append(list.get(), line.c_str());
  if (head == nullptr) return false;  // the old list is intact and still owned by `list`
  (void)list.release();
  list.reset(head);
  return true;
}

}  // namespace

core::Result<HeaderList> BuildHeaderList(const core::HttpHeaders& headers, bool has_body) {
  HeaderList list;
  bool has_expect = false;
  bool has_content_type = false;
  std::string line;  // one buffer for every line: libcurl copies each
  for (const auto& [name, value] : headers) {
    if (!IsToken(name)) {
      return core::MakeError(core::ErrorCode::kInvalidArgument,
                             "a request header name is empty or not a token");
    }
    if (!IsSingleLine(value)) {
      return core::MakeError(core::ErrorCode::kInvalidArgument,
                             "request header " + name + " has a line break or NUL in its value");
    }
    has_expect = has_expect || SameName(name, "Expect");
    has_content_type = has_content_type || SameName(name, "Content-Type");
    // libcurl's syntax for a header with an empty value is "Name;"; "Name:" would remove it.
    line.assign(name);
    line += value.empty() ? ";" : ": ";
    line += value;
    if (!Append(list, line)) {
      return core::MakeError(core::ErrorCode::kInternal, "out of memory for request headers");
    }
  }
  const bool ok = (has_expect || Append(list, "Expect:")) &&
                  (has_content_type || !has_body || Append(list, "Content-Type:"));
  if (!ok) return core::MakeError(core::ErrorCode::kInternal, "out of memory for request headers");
  return list;
}

}  // namespace quell::curl
