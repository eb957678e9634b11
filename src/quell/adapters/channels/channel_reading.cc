#include "quell/adapters/channels/channel_reading.h"

#include <utility>

#include "quell/adapters/config/secret_reader.h"

namespace quell::channels {

std::string ChannelReading::Secret(std::string_view secret, bool required) {
  config::SecretRef ref = config::ReadSecret(item, secret, dir, required);
  if (!ref.unresolved.empty()) unresolved.push_back(std::move(ref.unresolved));
  return std::move(ref.value);
}

std::string ChannelReading::CallbackSecret(std::string_view secret) {
  const size_t before = unresolved.size();
  std::string value = Secret(secret, false);
  if (unresolved.size() > before) callbacks.push_back(unresolved.back());
  return value;
}

void ChannelReading::RequireUrl(const char* key, const std::string& url,
                                std::initializer_list<const char*> schemes) {
  if (url.empty()) {
    item.Fail(key, "a URL is required");
    return;
  }
  for (const char* scheme : schemes) {
    if (url.starts_with(scheme)) return;
  }
  std::string expected;
  for (const char* scheme : schemes) {
    if (!expected.empty()) expected += " or ";
    expected += scheme;
  }
  item.Fail(key, "expected a URL starting with " + expected);
}

std::string ChannelReading::CredentialUrl() {
  const int given =
      (item.Has("url") ? 1 : 0) + (item.Has("url_env") ? 1 : 0) + (item.Has("url_file") ? 1 : 0);
  if (given != 1) {
    item.Fail(given == 0 ? "" : "url", "give exactly one of url, url_env or url_file");
    std::string unused;  // read, so Finish() does not report them a second time
    item.Read("url", unused);
    item.Read("url_env", unused);
    item.Read("url_file", unused);
    return {};
  }
  std::string url;
  if (item.Has("url")) {
    item.Read("url", url);
    RequireUrl("url", url, {"http://", "https://"});
    return url;
  }
  const bool from_file = item.Has("url_file");
  url = Secret("url", true);
  if (!url.empty() && !url.starts_with("http://") && !url.starts_with("https://")) {
    item.Fail(from_file ? "url_file" : "url_env",
              "the URL it holds must start with http:// or https://");
  }
  return url;
}

}  // namespace quell::channels
