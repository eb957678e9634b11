#include "quell/adapters/datadog/datadog_monitor_source.h"

#include <utility>

#include "quell/adapters/datadog/monitor_page.h"
#include "quell/core/text/url.h"

namespace quell::datadog {

DatadogMonitorSource::DatadogMonitorSource(core::HttpClient& http, DatadogOptions options)
    : http_(http), options_(std::move(options)) {
  while (options_.api_url.ends_with('/')) options_.api_url.pop_back();
  while (options_.app_url.ends_with('/')) options_.app_url.pop_back();
  if (options_.page_size == 0) options_.page_size = 100;
}

std::string DatadogMonitorSource::PageUrl(const core::MonitorQuery& query, uint32_t page) const {
  std::string url = options_.api_url + "/api/v1/monitor?group_states=all";
  if (!query.monitor_tags.empty()) {
    std::string tags;
    for (const std::string& tag : query.monitor_tags) tags += (tags.empty() ? "" : ",") + tag;
    url += "&monitor_tags=" + core::UrlEncode(tags);
  }
  url += "&page=" + std::to_string(page) + "&page_size=" + std::to_string(options_.page_size);
  return url;
}

core::MonitorListing DatadogMonitorSource::List(const core::MonitorQuery& query) {
  core::MonitorListing listing;
  for (uint32_t page = 0; page < options_.max_pages; ++page) {
    core::HttpRequest request;
    request.method = "GET";
    request.url = PageUrl(query, page);
    request.headers = {{"Accept", "application/json"},
                       {"DD-API-KEY", options_.api_key},
                       {"DD-APPLICATION-KEY", options_.app_key}};
    request.connect_timeout = options_.connect_timeout;
    request.total_timeout = options_.total_timeout;
    core::Result<core::HttpResponse> response = http_.Send(request);
    if (!response) {
      // The client's message names the method and URL, never a header: safe to pass on.
      listing.error =
          core::MakeError(response.error().code, "datadog: " + response.error().message);
      return listing;
    }
    auto parsed = ParseMonitorPage(response->status, response->body, options_.app_url);
    if (!parsed) {
      listing.error = parsed.error();
      if (!response->retry_note.empty()) {
        listing.error.message += " (" + response->retry_note + ")";
      }
      return listing;
    }
    ++listing.pages;
    for (core::MonitorGroup& group : parsed->groups) listing.groups.push_back(std::move(group));
    if (parsed->monitors < options_.page_size) {
      listing.complete = true;
      return listing;
    }
  }
  listing.error = core::MakeError(core::ErrorCode::kUnavailable,
                                  "datadog: more than " + std::to_string(options_.max_pages) +
                                      " pages of monitors (raise datadog.max_pages, or narrow "
                                      "monitor_tags)");
  return listing;
}

}  // namespace quell::datadog
