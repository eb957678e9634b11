#pragma once

#include <cstdio>
#include <string>

#include "quell/app/message_replay.h"
#include "quell/core/ports/channel.h"
#include "quell/core/text/time.h"

namespace quell::jsonl {

// One line of `quell replay --messages` for a delivered message:
//   {"at":"...","channel":"ops","idempotency_key":"q1-...",
//    "members":[{"key":"...","transition":"open"},...],
//    "key":"...","transition":"open",           a single transition's message
//    "group_key":"...","counts":{...},           a group's message (members from its payload)
//    "subject":"...","severity":"..."}           as the channel's renderer made them
void AppendMessageLine(std::string& out, core::WallTime at, const core::Delivery& delivery);

// Writes each message as one line to `out`; ok() turns false once a write failed.
class MessageLineWriter : public app::ReplayedMessageSink {
 public:
  explicit MessageLineWriter(std::FILE* out) : out_(out) {}
  void OnMessage(core::WallTime at, const core::Delivery& delivery) override;
  bool ok() const { return ok_; }

 private:
  std::FILE* out_;
  std::string line_;
  bool ok_ = true;
};

}  // namespace quell::jsonl
