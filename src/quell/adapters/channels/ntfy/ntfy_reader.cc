#include "quell/adapters/channels/ntfy/ntfy_reader.h"

#include <cctype>
#include <string>

namespace quell::channels {
namespace {

// The topic URL's last path segment: ntfy's topic names are 1-64 letters, digits, '-' or '_'.
bool IsNtfyTopicUrl(const std::string& url) {
  const size_t authority = url.find("://");
  if (authority == std::string::npos || url.find_first_of("?# ") != std::string::npos) {
    return false;
  }
  const size_t slash = url.rfind('/');
  if (slash < authority + 3) return false;
  const std::string topic = url.substr(slash + 1);
  if (topic.empty() || topic.size() > 64) return false;
  for (const char c : topic) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

}  // namespace

void ReadNtfySettings(ChannelReading& reading, NtfySettings& out) {
  config::MapReader& item = reading.item;
  item.Read("url", out.url);
  reading.RequireUrl("url", out.url, {"https://", "http://"});
  if (!out.url.empty() && (out.url.starts_with("https://") || out.url.starts_with("http://")) &&
      !IsNtfyTopicUrl(out.url)) {
    item.Fail("url",
              "expected a topic URL such as https://ntfy.sh/mytopic (a topic of 1-64 letters, "
              "digits, '-' or '_', no query)");
  }
  out.token = reading.Secret("token", false);
}

}  // namespace quell::channels
