#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "quell/core/ports/http_client.h"
#include "quell/core/ports/monitor_source.h"
#include "quell/core/text/time.h"

namespace quell::datadog {

struct DatadogOptions {
  // The API's root for the site, "https://api.datadoghq.com" (or a stand-in's in tests), and the
  // web app's, "https://app.datadoghq.com", which monitor links point into.
  std::string api_url;
  std::string app_url;
  // Sent as DD-API-KEY and DD-APPLICATION-KEY; never logged nor put in an error message.
  std::string api_key;
  std::string app_key;
  uint32_t page_size = 100;  // monitors per page (Datadog allows up to 1000)
  uint32_t max_pages = 100;  // a listing past this many pages is incomplete
  core::Duration connect_timeout = std::chrono::seconds(5);
  core::Duration total_timeout = std::chrono::seconds(30);
};

// A MonitorSource over Datadog's monitor API: List pages through
// GET {api_url}/api/v1/monitor?group_states=all&monitor_tags=<tags>&page=N&page_size=M until a
// page holds fewer than page_size monitors, each page read by ParseMonitorPage. One attempt per
// request: retries (429 with Retry-After or X-RateLimit-Reset, 5xx) are the HttpClient's.
// Thread-safe as far as the HttpClient is.
class DatadogMonitorSource final : public core::MonitorSource {
 public:
  DatadogMonitorSource(core::HttpClient& http, DatadogOptions options);

  core::MonitorListing List(const core::MonitorQuery& query) override;

  // The URL of page `page`, for tests and messages (it holds no credential).
  std::string PageUrl(const core::MonitorQuery& query, uint32_t page) const;
  const DatadogOptions& options() const { return options_; }

 private:
  core::HttpClient& http_;
  DatadogOptions options_;
};

}  // namespace quell::datadog
