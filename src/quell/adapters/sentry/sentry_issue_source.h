#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "quell/adapters/sentry/sentry_answers.h"
#include "quell/adapters/sentry/sentry_client.h"
#include "quell/core/ports/sources.h"

namespace quell::sentry {

struct IssueQuery {
  std::string project;                  // the project's slug
  std::string query = "is:unresolved";  // Sentry's search syntax, sent as `query`
  uint32_t max_pages = 100;             // a walk past this many pages fails (bounded polls)
  // Issues whose tags (their latest event's) one List may look up; the rest wait for the next
  // polls. Only when `needs_tags`: a key template reads tags.<name>.
  uint32_t max_enrich = 20;
  bool needs_tags = false;
};

// One project's issue list as an ErrorGroupSource: List walks
// GET /api/0/projects/{org}/{project}/issues/?query=... page by page, following the Link
// header's rel="next" cursor until results="false" (never the link's own URL: the token goes
// to base_url only). Each issue is one group; its tags come from its latest event
// (GET /api/0/organizations/{org}/issues/{id}/events/latest/), looked up once per issue and
// kept while the issue stays listed, because the list does not carry them. With `needs_tags`,
// an issue whose tags are not known yet leaves the listing incomplete (so no open incident is
// taken for healthy) until a later poll looked them up. Detail is the latest event over the
// issue as last listed. Not for concurrent List calls; Detail is thread-safe.
class SentryIssueSource final : public core::ErrorGroupSource {
 public:
  SentryIssueSource(const SentryClient& client, IssueQuery query);

  core::GroupListing List() override;
  // kNotFound for an id the last listing did not show; the transport's and StatusError's codes.
  core::Result<core::GroupDetail> Detail(std::string_view group_id) override;

  // The first page's URL path and query, for tests and the schema check.
  std::string ListPath(std::string_view cursor = {}) const;
  std::string LatestEventPath(std::string_view issue_id) const;
  // One latest event, parsed.
  core::Result<LatestEvent> FetchLatestEvent(std::string_view issue_id) const;
  const SentryClient& client() const { return client_; }
  const IssueQuery& query() const { return query_; }

 private:
  const SentryClient& client_;
  IssueQuery query_;
  mutable std::mutex mu_;
  std::map<std::string, core::Labels, std::less<>> tags_;        // by issue id
  std::map<std::string, core::ErrorGroup, std::less<>> listed_;  // the last listing, by id
};

}  // namespace quell::sentry
