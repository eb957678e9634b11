#include "quell/core/text/request_target.h"

#include "quell/core/text/utf8.h"

namespace quell::core {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `part` with every %XX replaced by its byte (and '+' by a space when `plus_is_space`); false
// at a '%' without two hex digits after it.
bool PercentDecode(std::string_view part, bool plus_is_space, std::string& out) {
  out.clear();
  out.reserve(part.size());
  for (size_t i = 0; i < part.size(); ++i) {
    const char c = part[i];
    if (c == '%') {
      if (i + 2 >= part.size()) return false;
      const int high = HexValue(part[i + 1]);
      const int low = HexValue(part[i + 2]);
      if (high < 0 || low < 0) return false;
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return true;
}

}  // namespace

bool IsUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

Result<RequestTarget> ParseRequestTarget(std::string_view target) {
  const auto bad = [](const std::string& why) {
    return MakeError(ErrorCode::kInvalidArgument, "the request target " + why);
  };
  if (!target.starts_with('/')) return bad("must start with '/'");
  const size_t question = target.find('?');
  RequestTarget parsed;
  if (!PercentDecode(target.substr(0, question), /*plus_is_space=*/false, parsed.path)) {
    return bad("has a '%' in its path that is not followed by two hex digits");
  }
  if (!IsUtf8(parsed.path)) return bad("has a path that is not UTF-8 once percent-decoded");
  if (question == std::string_view::npos) return parsed;
  std::string_view query = target.substr(question + 1);
  std::string name;
  std::string value;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t equals = pair.find('=');
    if (!PercentDecode(pair.substr(0, equals), /*plus_is_space=*/true, name) ||
        !PercentDecode(
            equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1),
            /*plus_is_space=*/true, value)) {
      return bad("has a '%' in its query that is not followed by two hex digits");
    }
    if (!IsUtf8(name) || !IsUtf8(value)) {
      return bad("has a query parameter that is not UTF-8 once percent-decoded");
    }
    parsed.query.emplace_back(std::move(name), std::move(value));
  }
  return parsed;
}

}  // namespace quell::core
