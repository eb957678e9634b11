#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

// One issue as the stand-in serves it; the rest of Sentry's issue fields are filled in.
struct SentryIssue {
  std::string id;        // numeric, as Sentry's are: "4505123001"
  std::string short_id;  // "SUPPORT-AGENT-1"
  std::string title;
  std::string culprit;
  std::string level = "error";
  std::string status = "unresolved";  // unresolved | resolved | ignored
  uint64_t count = 1;                 // served as a string, as Sentry does
  std::string first_seen = "2026-12-02T08:00:00.000000Z";
  std::string last_seen = "2026-12-02T08:59:00.000000Z";
  std::vector<std::pair<std::string, std::string>> tags;  // the latest event's
};

// A Sentry stand-in on loopback, written from Sentry's API documentation (docs.sentry.io/api:
// "List a Project's Issues", "Retrieve the Latest Event for an Issue", "Paginating Results"):
//   GET /api/0/projects/{org}/{project}/issues/?query=...&cursor=...   a JSON array of issues,
//     `page_size` a page, with a Link header holding a "previous" and a "next" link, each with
//     results="true|false" and cursor="0:<offset>:<is_prev>"; query "is:unresolved" (the
//     default when absent) keeps unresolved issues, any other query keeps all.
//   GET /api/0/organizations/{org}/issues/{id}/events/latest/   the latest event with its tags.
// Every request needs "Authorization: Bearer <token>" (401 {"detail": ...} otherwise); an
// unknown org, project or issue is 404. FailNext(Fault::kStatus429) answers 429 with
// Retry-After. Issues are served in the order put.
class SentryServer : public LoopbackReceiver {
 public:
  SentryServer(std::string token, std::string org);
  ~SentryServer() override = default;

  void Put(const std::string& project, SentryIssue issue);  // adds or replaces by id
  void Remove(const std::string& id);
  void SetPageSize(size_t size);
  // Serves `field` of issue `id` as this JSON text instead (schema drift: "12" for count, or
  // "null"); an empty `json` drops the field.
  void Override(const std::string& id, const std::string& field, const std::string& json);
  // The cursors the issue list was asked for, in order ("" for the first page).
  std::vector<std::string> CursorsAsked() const;

 protected:
  void WriteFault(Fault fault, httplib::Response& res) override;

 private:
  struct Stored {
    std::string project;
    SentryIssue issue;
    std::map<std::string, std::string> overrides;
  };
  std::string IssueJson(const Stored& stored) const;
  bool Authorized(const httplib::Request& req) const;

  const std::string token_;
  const std::string org_;
  // Guarded by mu_ (the base's).
  std::vector<Stored> issues_;
  size_t page_size_ = 100;
  std::vector<std::string> cursors_;
};

}  // namespace quell::testing
