#include "quell/adapters/sentry/sentry_schema_check.h"

#include <utility>

#include "quell/adapters/sentry/sentry_link.h"

namespace quell::sentry {
namespace {

std::string KindOf(const core::Error& error) {
  switch (error.code) {
    case core::ErrorCode::kCorrupt:
      return "drift";
    case core::ErrorCode::kPermissionDenied:
    case core::ErrorCode::kNotFound:
    case core::ErrorCode::kRejected:
      return "refused";
    default:
      return "unreachable";
  }
}

}  // namespace

std::vector<SchemaFinding> CheckIssueSchema(const SentryIssueSource& source,
                                            const std::string& condition,
                                            const core::KeyTemplate& key) {
  const std::string where = "condition \"" + condition + "\"";
  std::vector<SchemaFinding> out;
  const auto finding = [&](const core::Error& error) {
    out.push_back({KindOf(error), where + ": " + error.message});
  };
  const std::string what = "GET /api/0/projects/{org}/{project}/issues/ (page 1)";
  auto response = source.client().Get(source.ListPath());
  if (!response) {
    finding(response.error());
    return out;
  }
  if (response->status != 200) {
    finding(StatusError(*response, what));
    return out;
  }
  auto page = ParseIssuePage(response->body, what);
  if (!page) {
    finding(page.error());
    return out;
  }
  if (auto next = ParseNextPage(core::FindHeader(response->headers, "Link")); !next) {
    finding(next.error());
    return out;
  }
  std::vector<std::string> tags;
  for (const std::string& field : key.Fields()) {
    if (field.starts_with("tags.")) tags.push_back(field.substr(5));
  }
  if (tags.empty() || page->empty()) return out;
  const core::ErrorGroup& first = page->front();
  auto event = source.FetchLatestEvent(first.id);
  if (!event) {
    finding(event.error());
    return out;
  }
  for (const std::string& tag : tags) {
    if (core::FindLabel(event->tags, tag)) continue;
    std::string text = where;
    text.append(": key \"").append(key.text()).append("\" reads tags.").append(tag);
    text.append(", which the latest event of issue ").append(first.id);
    text.append(" lacks; its key would read \"-\"");
    out.push_back({"missing tag", std::move(text), true});
  }
  return out;
}

}  // namespace quell::sentry
