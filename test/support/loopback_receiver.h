#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "quell/core/ports/http_client.h"

// Loopback stand-ins for the providers quell's HTTP channels talk to: a cpp-httplib server on
// 127.0.0.1 port 0 with its own thread, which checks credentials, records every request,
// deduplicates by idempotency key and misbehaves on demand. Subclasses: WebhookReceiver,
// SlackReceiver, TwilioReceiver, PagerDutyReceiver.
namespace quell::testing {

struct ReceivedRequest {
  std::string method;
  std::string path;
  core::HttpHeaders headers;
  std::string body;
  std::string idempotency_key;  // what the receiver deduplicates by; empty when none
  bool authorized = false;      // passed the receiver's credential check
  bool duplicate = false;       // an earlier accepted request carried the same key
};

// What the next request(s) suffer instead of a normal answer.
enum class Fault : uint8_t {
  kNone,
  kHang,       // accepted and recorded as delivered, then no answer until ReleaseHung()
  kStatus500,  // recorded, not accepted, 500
  kStatus429,  // recorded, not accepted, 429 with Retry-After (SetRetryAfter, default "7")
  kReset,      // recorded, not accepted, the connection is closed without an answer
};

// cpp-httplib (Debian's build) listens with a backlog of 5: a client opening dozens of
// connections at once loses SYNs and waits a second for the retransmit. This re-listens the
// loopback socket bound to `port` with a long backlog; call it after bind_to_any_port.
void WidenListenBacklog(int port);

class LoopbackReceiver {
 public:
  virtual ~LoopbackReceiver();
  LoopbackReceiver(const LoopbackReceiver&) = delete;
  LoopbackReceiver& operator=(const LoopbackReceiver&) = delete;

  // "http://127.0.0.1:<port>".
  std::string BaseUrl() const;

  // The next `count` authorized requests suffer `fault`; faults queue in order.
  void FailNext(Fault fault, size_t count = 1);
  void SetRetryAfter(std::string value);
  // Answers every hung request (their clients have usually given up). Also on destruction.
  void ReleaseHung();

  // Every request, in arrival order, whatever became of it.
  std::vector<ReceivedRequest> Requests() const;
  // Distinct idempotency keys of accepted requests: what the provider would have delivered.
  // A test asserts "exactly one message per transition" on this.
  std::set<std::string> DeliveredKeys() const;
  // Accepted requests, duplicates included.
  size_t AcceptedCount() const;

 protected:
  LoopbackReceiver();
  httplib::Server& server() { return server_; }
  // Binds and starts the server thread; subclasses call it after adding their routes.
  void Start();

  struct Admission {
    bool answer = false;     // false: `res` is written (a fault), or the request was not
                             // authorized and the handler writes its provider's refusal
    bool duplicate = false;  // an accepted request carried the same key before
    bool hang = false;       // call HangUntilReleased() after processing, before returning
  };
  // The common part of every handler: records the request, then applies the next fault.
  Admission Admit(const httplib::Request& req, httplib::Response& res, const std::string& key,
                  bool authorized);
  // Blocks the handler (so the client gets no answer) until ReleaseHung(). Call it without
  // holding mu_, after the request has had its effect: a hung request was delivered.
  void HangUntilReleased();
  // Calls HangUntilReleased() on destruction when `hang`: a handler declares one right after
  // Admit, before any lock on mu_, so every way out of the handler hangs.
  class HangAtExit {
   public:
    HangAtExit(LoopbackReceiver& receiver, bool hang) : receiver_(receiver), hang_(hang) {}
    ~HangAtExit() {
      if (hang_) receiver_.HangUntilReleased();
    }
    HangAtExit(const HangAtExit&) = delete;
    HangAtExit& operator=(const HangAtExit&) = delete;

   private:
    LoopbackReceiver& receiver_;
    bool hang_;
  };
  // The body of a 500 or 429 fault; a provider-shaped one where the provider has one.
  virtual void WriteFault(Fault fault, httplib::Response& res);

  mutable std::mutex mu_;  // guards the recorded state below and in subclasses

 private:
  void ResetConnection(int remote_port) const;

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::vector<ReceivedRequest> requests_;
  std::set<std::string> delivered_;
  size_t accepted_ = 0;
  std::deque<Fault> faults_;
  std::string retry_after_ = "7";
  bool released_ = false;
  std::condition_variable release_;
};

}  // namespace quell::testing
