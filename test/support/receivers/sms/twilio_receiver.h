#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

struct TwilioMessage {
  std::string sid;  // "SM" + 32 hex digits
  std::string to;
  std::string from;
  std::string body;
  std::string idempotency_token;
};

// Twilio's Messages API: POST <BaseUrl()>/2010-04-01/Accounts/<sid>/Messages.json, checking
// basic auth sid:token (401 with code 20003 otherwise) and the To/From/Body form fields.
// Deduplicates by I-Twilio-Idempotency-Token: a duplicate answers 201 with the first
// message's sid and sends nothing.
class TwilioReceiver : public LoopbackReceiver {
 public:
  TwilioReceiver(const std::string& account_sid, const std::string& auth_token);
  ~TwilioReceiver() override = default;

  // The next authorized request answers `status` {"code": code, "message": message}.
  void RejectNext(int code, std::string message, int status = 400);
  // Messages actually "sent", duplicates left out.
  std::vector<TwilioMessage> Messages() const;

 private:
  void WriteFault(Fault fault, httplib::Response& res) override;

  struct Rejection {
    int code;
    std::string message;
    int status;
  };
  std::deque<Rejection> rejections_;                 // guarded by mu_
  std::vector<TwilioMessage> messages_;              // guarded by mu_
  std::map<std::string, std::string> sid_by_token_;  // guarded by mu_
};

}  // namespace quell::testing
