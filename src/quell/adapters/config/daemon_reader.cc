#include "quell/adapters/config/daemon_reader.h"

#include <string>
#include <string_view>

#include "quell/adapters/config/secret_reader.h"

namespace quell::config {
namespace {

bool IsPublicUrl(std::string_view url) {
  size_t rest = 0;
  if (url.starts_with("https://")) {
    rest = 8;
  } else if (url.starts_with("http://")) {
    rest = 7;
  } else {
    return false;
  }
  const size_t host_end = url.find('/', rest);
  const std::string_view host = url.substr(rest, host_end - rest);
  return !host.empty() && url.find_first_of("?# \t\r\n") == std::string_view::npos;
}

// Returns the located message of a token_env whose variable is unset (empty otherwise): what
// that stops depends on the conditions (ReadDaemonSections).
std::string ReadHttp(MapReader section, const std::filesystem::path& dir, OpsHttpSettings& http) {
  section.Read("listen", http.listen);
  const auto colon = http.listen.rfind(':');
  if (colon == std::string::npos || colon + 1 == http.listen.size() ||
      http.listen.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
    section.Fail("listen", "expected host:port, e.g. 127.0.0.1:8787");
  }
  SecretRef token = ReadSecret(section, "token", dir, /*required=*/false);
  http.token = std::move(token.value);
  http.token_origin = std::move(token.origin);
  std::string token_unset;
  if (section.Has("token_file")) {
    http.token_unresolved = std::move(token.unresolved);
  } else {
    token_unset = std::move(token.unresolved);
  }
  section.Read("token_name", http.token_name);
  if (http.token_name.size() > 64 ||
      http.token_name.find_first_of(" \t\r\n\"") != std::string::npos) {
    section.Fail("token_name", "want a short name without spaces or quotes, e.g. ops-oncall");
  }
  section.Read("open_reads", http.open_reads);
  section.ReadNameList("allowed_hosts", http.allowed_hosts);
  for (const std::string& host : http.allowed_hosts) {
    if (host.find_first_of(":/[] \t@") != std::string::npos) {
      section.Fail("allowed_hosts",
                   "want host names without a scheme or port, e.g. "
                   "quell.internal (got \"" +
                       host + "\")");
    }
  }
  section.Read("public_url", http.public_url);
  while (http.public_url.ends_with('/')) http.public_url.pop_back();
  if (!http.public_url.empty() && !IsPublicUrl(http.public_url)) {
    section.Fail("public_url",
                 "expected an http:// or https:// URL with a host and no query, e.g. "
                 "https://quell.example.com");
  }
  SecretRef ack = ReadSecret(section, "ack_link_secret", dir, /*required=*/false);
  http.ack_link_secret = std::move(ack.value);
  if (!ack.unresolved.empty()) {
    http.ack_link_secret_unresolved =
        ack.unresolved + ": ack links need it (messages would carry none)";
  }
  const char* ack_where =
      section.Has("ack_link_secret_file") ? "ack_link_secret_file" : "ack_link_secret_env";
  if (!http.ack_link_secret.empty() && http.ack_link_secret.size() < 16) {
    section.Fail(ack_where, "the ack-link secret must be at least 16 bytes (it has " +
                                std::to_string(http.ack_link_secret.size()) + ")");
  }
  if ((!http.ack_link_secret.empty() || !http.ack_link_secret_unresolved.empty()) &&
      http.public_url.empty()) {
    section.Fail(ack_where,
                 "ack links need http.public_url (the address people reach this API at)");
  }
  section.Read("ack_link_ttl", http.ack_link_ttl);
  if (http.ack_link_ttl.count() <= 0) section.Fail("ack_link_ttl", "must be positive, e.g. 24h");
  section.Read("health_grace", http.health_grace);
  if (http.health_grace.count() < 0) section.Fail("health_grace", "must not be negative");
  section.Finish();
  return token_unset;
}

// Without the token every push is refused (403), and Alertmanager does not retry a 4xx: a push
// condition cannot work, so its want of the token stops `run`. Otherwise an unset token_env
// leaves only the API closed (a trial without it), which is said at every start.
void CheckToken(const std::string& token_unset, Config& config) {
  OpsHttpSettings& http = config.http;
  if (!config.push_conditions.empty() && http.token.empty() && http.token_unresolved.empty()) {
    const std::string need = "push condition \"" + config.push_conditions.front().common.name +
                             "\" needs the API token: without it every push is refused (403, "
                             "which Alertmanager does not retry)";
    http.token_unresolved = token_unset.empty() ? config.push_where + ": " + need +
                                                      "; set http.token_env or http.token_file"
                                                : token_unset + "; " + need;
  } else if (!token_unset.empty()) {
    config.warnings.push_back(token_unset +
                              ": the HTTP API refuses every request that needs the token (403) "
                              "until it is set");
  }
}

void ReadHeartbeat(MapReader section, HeartbeatSettings& heartbeat) {
  section.Read("url", heartbeat.url);
  if (!heartbeat.url.empty() && heartbeat.url.rfind("http://", 0) != 0 &&
      heartbeat.url.rfind("https://", 0) != 0) {
    section.Fail("url", "expected an http:// or https:// URL, or nothing");
  }
  section.Read("timeout", heartbeat.timeout);
  section.Read("max_attempts", heartbeat.max_attempts, 1, 20);
  section.Finish();
}

void ReadLog(MapReader section, LogSettings& log) {
  std::string format;
  section.Read("format", format);
  if (format == "json") {
    log.format = LogFormat::kJson;
  } else if (format == "text") {
    log.format = LogFormat::kText;
  } else if (!format.empty()) {
    section.Fail("format", "expected json or text");
  }
  std::string level;
  section.Read("level", level);
  if (level == "debug") {
    log.level = LogLevelSetting::kDebug;
  } else if (level == "info") {
    log.level = LogLevelSetting::kInfo;
  } else if (level == "warn") {
    log.level = LogLevelSetting::kWarn;
  } else if (level == "error") {
    log.level = LogLevelSetting::kError;
  } else if (!level.empty()) {
    section.Fail("level", "expected debug, info, warn or error");
  }
  section.Finish();
}

void ReadPolling(MapReader section, PollingSettings& polling) {
  section.Read("lease", polling.lease);
  // Renewed every lease/3 on a store round trip: shorter than a second only thrashes the store.
  if (polling.lease < std::chrono::seconds(1)) {
    section.Fail("lease", "must be at least 1s (renewed every lease/3), got " +
                              core::FormatDuration(polling.lease));
  }
  section.Finish();
}

}  // namespace

void ReadDaemonSections(MapReader& top, const std::filesystem::path& dir, Config& config) {
  CheckToken(ReadHttp(top.Child("http"), dir, config.http), config);
  ReadHeartbeat(top.Child("heartbeat"), config.heartbeat);
  ReadLog(top.Child("log"), config.log);
  ReadPolling(top.Child("polling"), config.polling);
}

}  // namespace quell::config
