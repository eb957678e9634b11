#pragma once

#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

// One notification as the ntfy stand-in holds it.
struct NtfyMessage {
  std::string id;
  std::string topic;
  std::string title;
  std::string message;
  int priority = 3;
  std::vector<std::string> tags;
  std::string click;
};

// An ntfy server as docs.ntfy.sh/publish describes publishing: POST /<topic> with the message
// as the body and Title/Priority/Tags/Click headers (X- prefixed too), or POST / with the JSON
// form {"topic","message","title","priority","tags","click"}. With a token configured, a topic
// needs "Authorization: Bearer <token>" (403 forbidden without, 401 with a wrong one). It
// refuses what ntfy refuses (400/413 with ntfy's {"code","http","error","link"}): a bad topic,
// a priority outside 1-5, a title over 1 KB, tags over 512 bytes, a message over 4,096 bytes
// (a server without attachments). The answer is the published message with its id. Like ntfy
// it has no idempotency key: a retried publish is a second notification.
class NtfyReceiver : public LoopbackReceiver {
 public:
  explicit NtfyReceiver(std::string token = "");
  ~NtfyReceiver() override = default;

  std::string TopicUrl(const std::string& topic = "quell-alerts") const {
    return BaseUrl() + "/" + topic;
  }
  std::vector<NtfyMessage> Messages() const;

 private:
  void WriteFault(Fault fault, httplib::Response& res) override;

  const std::string token_;
  std::vector<NtfyMessage> messages_;  // guarded by mu_
};

}  // namespace quell::testing
