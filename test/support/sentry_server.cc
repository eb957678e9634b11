#include "sentry_server.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace quell::testing {
namespace {

using nlohmann::json;

void Refuse(httplib::Response& res, int status, const std::string& detail) {
  res.status = status;
  res.set_content(json{{"detail", detail}}.dump(), "application/json");
}

// Sentry's cursor "<value>:<offset>:<is_prev>"; the stand-in pages by offset only.
size_t OffsetOf(const std::string& cursor) {
  const size_t first = cursor.find(':');
  const size_t second = cursor.find(':', first + 1);
  if (first == std::string::npos || second == std::string::npos) return 0;
  return std::stoul(cursor.substr(first + 1, second - first - 1));
}

}  // namespace

SentryServer::SentryServer(std::string token, std::string org)
    : token_(std::move(token)), org_(std::move(org)) {
  server().Get(R"(/api/0/projects/([^/]+)/([^/]+)/issues/)", [this](const httplib::Request& req,
                                                                    httplib::Response& res) {
    const Admission admission = Admit(req, res, "", Authorized(req));
    const HangAtExit hang(*this, admission.hang);
    if (!admission.answer) {
      if (!Authorized(req)) Refuse(res, 401, "Invalid token");
      return;
    }
    const std::string asked_org = req.matches[1];
    const std::string project = req.matches[2];
    const std::string query =
        req.has_param("query") ? req.get_param_value("query") : "is:unresolved";
    const std::string cursor = req.has_param("cursor") ? req.get_param_value("cursor") : "";
    const std::lock_guard lock(mu_);
    cursors_.push_back(cursor);
    if (asked_org != org_) return Refuse(res, 404, "The requested resource does not exist");
    std::vector<const Stored*> matching;
    for (const Stored& stored : issues_) {
      if (stored.project != project) continue;
      if (query == "is:unresolved" && stored.issue.status != "unresolved") continue;
      matching.push_back(&stored);
    }
    const size_t offset = std::min(OffsetOf(cursor), matching.size());
    const size_t end = std::min(offset + page_size_, matching.size());
    std::string body = "[";
    for (size_t i = offset; i < end; ++i) {
      if (i > offset) body += ',';
      body += IssueJson(*matching[i]);
    }
    body += ']';
    const std::string base = BaseUrl() + req.path + "?&cursor=";
    const std::string prev = "0:" + std::to_string(offset) + ":1";
    const std::string next = "0:" + std::to_string(end) + ":0";
    res.set_header("Link", "<" + base + prev + ">; rel=\"previous\"; results=\"" +
                               (offset > 0 ? "true" : "false") + "\"; cursor=\"" + prev + "\", <" +
                               base + next + ">; rel=\"next\"; results=\"" +
                               (end < matching.size() ? "true" : "false") + "\"; cursor=\"" + next +
                               "\"");
    res.status = 200;
    res.set_content(body, "application/json");
  });
  server().Get(R"(/api/0/organizations/([^/]+)/issues/([^/]+)/events/latest/)",
               [this](const httplib::Request& req, httplib::Response& res) {
                 const Admission admission = Admit(req, res, "", Authorized(req));
                 const HangAtExit hang(*this, admission.hang);
                 if (!admission.answer) {
                   if (!Authorized(req)) Refuse(res, 401, "Invalid token");
                   return;
                 }
                 const std::string asked_org = req.matches[1];
                 const std::string id = req.matches[2];
                 const std::lock_guard lock(mu_);
                 const auto it = std::find_if(issues_.begin(), issues_.end(),
                                              [&](const Stored& s) { return s.issue.id == id; });
                 if (asked_org != org_ || it == issues_.end()) {
                   return Refuse(res, 404, "The requested resource does not exist");
                 }
                 json tags = json::array();
                 for (const auto& [key, value] : it->issue.tags) {
                   tags.push_back({{"key", key}, {"value", value}, {"_meta", nullptr}});
                 }
                 const json event = {{"eventID", "9fac2ceed9344f2bbfdd1fdacb0e" + id.substr(0, 4)},
                                     {"id", "9fac2ceed9344f2bbfdd1fdacb0e" + id.substr(0, 4)},
                                     {"groupID", id},
                                     {"title", it->issue.title},
                                     {"message", ""},
                                     {"platform", "python"},
                                     {"type", "error"},
                                     {"metadata", {{"type", "Error"}, {"value", it->issue.title}}},
                                     {"tags", tags},
                                     {"dateCreated", it->issue.last_seen},
                                     {"dateReceived", it->issue.last_seen},
                                     {"entries", json::array()},
                                     {"user", nullptr},
                                     {"contexts", json::object()}};
                 res.status = 200;
                 res.set_content(event.dump(), "application/json");
               });
  Start();
}

bool SentryServer::Authorized(const httplib::Request& req) const {
  return req.get_header_value("Authorization") == "Bearer " + token_;
}

std::string SentryServer::IssueJson(const Stored& stored) const {
  const SentryIssue& issue = stored.issue;
  json item = {
      {"annotations", json::array()},
      {"assignedTo", nullptr},
      {"count", std::to_string(issue.count)},
      {"culprit", issue.culprit},
      {"firstSeen", issue.first_seen},
      {"hasSeen", false},
      {"id", issue.id},
      {"isBookmarked", false},
      {"isPublic", false},
      {"isSubscribed", true},
      {"lastSeen", issue.last_seen},
      {"level", issue.level},
      {"logger", nullptr},
      {"metadata", {{"title", issue.title}}},
      {"numComments", 0},
      {"permalink", "https://sentry.io/organizations/" + org_ + "/issues/" + issue.id + "/"},
      {"project", {{"id", "2"}, {"name", stored.project}, {"slug", stored.project}}},
      {"shareId", nullptr},
      {"shortId", issue.short_id},
      {"stats", {{"24h", json::array()}}},
      {"status", issue.status},
      {"statusDetails", json::object()},
      {"subscriptionDetails", nullptr},
      {"title", issue.title},
      {"type", "default"},
      {"userCount", 0}};
  for (const auto& [field, text] : stored.overrides) {
    if (text.empty()) {
      item.erase(field);
    } else {
      item[field] = json::parse(text);
    }
  }
  return item.dump();
}

void SentryServer::Put(const std::string& project, SentryIssue issue) {
  const std::lock_guard lock(mu_);
  for (Stored& stored : issues_) {
    if (stored.issue.id == issue.id) {
      stored.project = project;
      stored.issue = std::move(issue);
      return;
    }
  }
  issues_.push_back(Stored{project, std::move(issue), {}});
}

void SentryServer::Remove(const std::string& id) {
  const std::lock_guard lock(mu_);
  std::erase_if(issues_, [&id](const Stored& s) { return s.issue.id == id; });
}

void SentryServer::SetPageSize(size_t size) {
  const std::lock_guard lock(mu_);
  page_size_ = size;
}

void SentryServer::Override(const std::string& id, const std::string& field,
                            const std::string& json_text) {
  const std::lock_guard lock(mu_);
  for (Stored& stored : issues_) {
    if (stored.issue.id == id) stored.overrides[field] = json_text;
  }
}

std::vector<std::string> SentryServer::CursorsAsked() const {
  const std::lock_guard lock(mu_);
  return cursors_;
}

void SentryServer::WriteFault(Fault fault, httplib::Response& res) {
  // Sentry's rate limiter answers 429 with a detail and Retry-After (set by the base).
  res.set_content(
      fault == Fault::kStatus500
          ? R"({"detail":"Internal Error"})"
          : R"({"detail":"You are attempting to use this endpoint too frequently. Limit is 40 requests in 1 seconds"})",
      "application/json");
}

}  // namespace quell::testing
