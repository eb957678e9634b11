#include "quell/adapters/config/env_expand.h"

namespace quell::config {

core::Result<std::string> ExpandEnv(std::string_view text, const EnvLookup& env) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      out.push_back(text[i++]);
      continue;
    }
    if (text[i + 1] == '$') {
      out.push_back('$');
      i += 2;
      continue;
    }
    if (text[i + 1] != '{') {
      out.push_back(text[i++]);
      continue;
    }
    const size_t close = text.find('}', i + 2);
    if (close == std::string_view::npos) {
      return core::MakeError(core::ErrorCode::kInvalidArgument, "\"${\" is never closed");
    }
    std::string_view body = text.substr(i + 2, close - i - 2);
    std::optional<std::string_view> fallback;
    if (const size_t sep = body.find(":-"); sep != std::string_view::npos) {
      fallback = body.substr(sep + 2);
      body = body.substr(0, sep);
    }
    const std::optional<std::string> value = env(body);
    if (value && !value->empty()) {
      out += *value;
    } else if (fallback) {
      out += *fallback;
    } else {
      return core::MakeError(core::ErrorCode::kInvalidArgument,
                             "environment variable " + std::string(body) + " is not set (write ${" +
                                 std::string(body) + ":-default} to give a default)");
    }
    i = close + 1;
  }
  return out;
}

}  // namespace quell::config
