#include "quell/adapters/sentry/sentry_issue_source.h"

#include <set>
#include <utility>

#include "quell/adapters/sentry/sentry_link.h"
#include "quell/core/text/url.h"

namespace quell::sentry {

SentryIssueSource::SentryIssueSource(const SentryClient& client, IssueQuery query)
    : client_(client), query_(std::move(query)) {}

std::string SentryIssueSource::ListPath(std::string_view cursor) const {
  std::string path = "/api/0/projects/" + core::UrlEncode(client_.options().org) + "/" +
                     core::UrlEncode(query_.project) +
                     "/issues/?query=" + core::UrlEncode(query_.query);
  if (!cursor.empty()) path += "&cursor=" + core::UrlEncode(cursor);
  return path;
}

std::string SentryIssueSource::LatestEventPath(std::string_view issue_id) const {
  return "/api/0/organizations/" + core::UrlEncode(client_.options().org) + "/issues/" +
         core::UrlEncode(issue_id) + "/events/latest/";
}

core::Result<LatestEvent> SentryIssueSource::FetchLatestEvent(std::string_view issue_id) const {
  const std::string what =
      "GET /api/0/organizations/{org}/issues/" + std::string(issue_id) + "/events/latest/";
  auto response = client_.Get(LatestEventPath(issue_id));
  if (!response) return response.error();
  if (response->status != 200) return StatusError(*response, what);
  return ParseLatestEvent(response->body, what);
}

core::GroupListing SentryIssueSource::List() {
  core::GroupListing listing;
  const auto fail = [&listing](core::Error error) {
    listing.complete = false;
    listing.error = std::move(error);
    return std::move(listing);
  };
  std::string cursor;
  std::set<std::string> cursors_seen;
  while (true) {
    if (listing.pages >= query_.max_pages) {
      return fail(core::MakeError(
          core::ErrorCode::kCorrupt,
          "sentry: project " + query_.project + ": more than " + std::to_string(query_.max_pages) +
              " pages of issues; narrow the query or raise sentry.max_pages"));
    }
    const std::string what = "GET /api/0/projects/{org}/" + query_.project + "/issues/ (page " +
                             std::to_string(listing.pages + 1) + ")";
    auto response = client_.Get(ListPath(cursor));
    if (!response) return fail(response.error());
    if (response->status != 200) return fail(StatusError(*response, what));
    auto page = ParseIssuePage(response->body, what);
    if (!page) return fail(page.error());
    auto next = ParseNextPage(core::FindHeader(response->headers, "Link"));
    if (!next) return fail(next.error());
    for (core::ErrorGroup& group : *page) listing.groups.push_back(std::move(group));
    ++listing.pages;
    if (!next->more) break;
    if (!cursors_seen.insert(next->cursor).second) {
      return fail(core::MakeError(
          core::ErrorCode::kCorrupt,
          "sentry: " + what + ": the server repeated cursor \"" + next->cursor + "\""));
    }
    cursor = std::move(next->cursor);
  }

  // Tags: looked up once per issue, at most max_enrich a poll, in listing order.
  uint32_t looked_up = 0;
  size_t waiting = 0;
  core::Error lookup_error;
  std::vector<core::ErrorGroup> kept;
  kept.reserve(listing.groups.size());
  for (core::ErrorGroup& group : listing.groups) {
    std::unique_lock lock(mu_);
    auto known = tags_.find(group.id);
    if (known == tags_.end() && query_.needs_tags && !group.resolved) {
      if (looked_up >= query_.max_enrich) {
        ++waiting;
        continue;
      }
      ++looked_up;
      lock.unlock();
      auto event = FetchLatestEvent(group.id);
      lock.lock();
      if (!event) {
        ++waiting;
        if (lookup_error.message.empty()) lookup_error = event.error();
        continue;
      }
      known = tags_.emplace(group.id, std::move(event->tags)).first;
    }
    if (known != tags_.end()) group.tags = known->second;
    kept.push_back(std::move(group));
  }
  listing.groups = std::move(kept);
  {
    const std::lock_guard lock(mu_);
    std::map<std::string, core::ErrorGroup, std::less<>> listed;
    for (const core::ErrorGroup& group : listing.groups) listed.emplace(group.id, group);
    // Tags of issues that left the list are forgotten: a reopened issue is looked up again.
    std::erase_if(tags_, [&listed](const auto& entry) { return !listed.contains(entry.first); });
    listed_ = std::move(listed);
  }
  if (waiting > 0) {
    std::string message =
        "sentry: project " + query_.project + ": " + std::to_string(waiting) + " issue" +
        (waiting == 1 ? "" : "s") +
        " still wait for their tags (sentry.max_enrich: " + std::to_string(query_.max_enrich) +
        " a poll)";
    if (!lookup_error.message.empty()) message += "; " + lookup_error.message;
    return fail(core::MakeError(
        lookup_error.message.empty() ? core::ErrorCode::kUnavailable : lookup_error.code,
        std::move(message)));
  }
  listing.complete = true;
  return listing;
}

core::Result<core::GroupDetail> SentryIssueSource::Detail(std::string_view group_id) {
  core::GroupDetail detail;
  {
    const std::lock_guard lock(mu_);
    const auto it = listed_.find(group_id);
    if (it == listed_.end()) {
      return core::MakeError(core::ErrorCode::kNotFound, "sentry: issue " + std::string(group_id) +
                                                             " is not in the last listing");
    }
    detail.group = it->second;
  }
  auto event = FetchLatestEvent(group_id);
  if (!event) return event.error();
  if (detail.group.tags.empty()) detail.group.tags = event->tags;
  detail.events.push_back(std::move(event->event));
  return detail;
}

}  // namespace quell::sentry
