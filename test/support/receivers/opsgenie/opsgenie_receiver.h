#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

// One alert as Opsgenie keeps it.
struct OpsgenieAlert {
  std::string alias;
  std::string message;
  std::string description;
  std::string priority;  // "P3" when the create named none, as Opsgenie defaults
  std::string source;
  std::vector<std::string> tags;
  std::map<std::string, std::string> details;
  std::string status = "open";  // "open" or "closed"
  int count = 1;                // creates for the alias while open: Opsgenie's de-duplication
  std::string close_note;
};

// What Opsgenie's Get Request Status would say of an accepted request.
struct OpsgenieRequestStatus {
  std::string action;  // "Create" or "Close"
  bool success = false;
  std::string status;  // "Created alert", "Alert does not exist", ...
  std::string alias;
};

// Opsgenie's Alert API v2 on loopback, after https://docs.opsgenie.com/docs/alert-api,
// https://docs.opsgenie.com/docs/response and https://docs.opsgenie.com/docs/api-rate-limiting:
//   POST /v2/alerts                                  create
//   POST /v2/alerts/<identifier>/close[?identifierType=id|alias|tiny]
// Authorization: GenieKey <key>, else 401. A body that is no JSON object: 400; a create
// without a message or past a documented limit (message 130, alias 512, description 15000,
// entity 512, source 100 characters; 20 tags of 50; details 8000 characters in all; priority
// P1..P5): 422 with Opsgenie's {"message":...,"errors":{field: why}}. A valid request is answered
// 202 {"result":"Request will be processed","took":...,"requestId":...} and then processed,
// as Opsgenie does asynchronously: a create whose alias names an open alert creates nothing
// and counts on that alert; otherwise it opens a new one. A close of an alias with no open
// alert is still 202, and its request status says so. A 429 fault carries Opsgenie's
// X-RateLimit-State/-Reason/-Period-In-Sec headers, and Retry-After unless told otherwise.
class OpsgenieReceiver : public LoopbackReceiver {
 public:
  explicit OpsgenieReceiver(std::string api_key);
  ~OpsgenieReceiver() override = default;

  // Every alert ever opened, in order (a closed alias opened again is a second alert).
  std::vector<OpsgenieAlert> Alerts() const;
  // The open alert with `alias`, if any, else the last one with it.
  std::optional<OpsgenieAlert> AlertByAlias(const std::string& alias) const;
  std::optional<OpsgenieRequestStatus> RequestStatus(const std::string& request_id) const;

  // A 429's X-RateLimit-Period-In-Sec (default 60) and whether it carries Retry-After.
  void SetThrottle(int period_seconds, bool retry_after);

 private:
  void WriteFault(Fault fault, httplib::Response& res) override;
  void Create(const httplib::Request& req, httplib::Response& res);
  void Close(const httplib::Request& req, httplib::Response& res);
  // The request id of an accepted request, with its status recorded; mu_ held.
  std::string Accept(OpsgenieRequestStatus status);

  const std::string api_key_;
  std::vector<OpsgenieAlert> alerts_;                            // guarded by mu_
  std::map<std::string, OpsgenieRequestStatus> request_status_;  // guarded by mu_
  int next_request_ = 1;                                         // guarded by mu_
  int throttle_period_ = 60;                                     // guarded by mu_
  bool throttle_retry_after_ = true;                             // guarded by mu_
};

}  // namespace quell::testing
