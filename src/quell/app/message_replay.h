#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/app/dispatcher.h"
#include "quell/app/operator_commands.h"
#include "quell/app/poll_applier.h"
#include "quell/app/replay_input.h"
#include "quell/core/conditions/condition.h"
#include "quell/core/ports/channel.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/payload_encoder.h"

namespace quell::app {

// Virtual time for `quell replay --messages`: it stands where the replay set it and moves only
// when set forward or slept on. Thread-safe.
class VirtualClock : public core::Clock {
 public:
  explicit VirtualClock(core::WallTime start) : start_(start), now_(start) {}
  // Moves to `at`; a time before the current one leaves it where it is.
  void Set(core::WallTime at);
  core::WallTime Now() override;
  core::MonoTime Monotonic() override;
  void SleepFor(core::Duration d) override;

 private:
  std::mutex mutex_;
  const core::WallTime start_;
  core::WallTime now_;
};

// A channel that keeps what it is given and reports it sent, so the dispatcher's real path
// (claims, grouping, pacing, rendering) runs with nothing on the wire. Thread-safe: the
// dispatcher sends on worker threads.
class RecordingChannel : public core::Channel {
 public:
  core::SendOutcome Send(const core::Delivery& delivery) override;
  // What was sent since the last call, in send order.
  std::vector<core::Delivery> Take();

 private:
  std::mutex mutex_;
  std::vector<core::Delivery> sent_;
};

// Receives each message the replay delivered, in time order.
class ReplayedMessageSink {
 public:
  virtual ~ReplayedMessageSink() = default;
  // `at` is when the message became due: its row's next attempt time when it was claimed.
  virtual void OnMessage(core::WallTime at, const core::Delivery& delivery) = 0;
};

struct MessageReplayOptions {
  // What every poll applies: the defaults' policy and channels, the tenant budget, ...
  ApplyOptions defaults;
  // The configured conditions by name: an observation naming one takes its policy, channels and
  // shadow mode.
  std::map<std::string, core::ConditionCommon, std::less<>> conditions;
  // Dispatch rounds at one instant before giving up on the outbox draining (a full claim batch
  // asks for another round at once).
  uint32_t max_rounds_per_instant = 100000;
  // After the last line the clock moves on to each time something falls due (an escalation
  // tier, a group's wait, a retry, a digest, a dead-letter notice) up to and including this
  // one. Unset: it stops at the last line's time.
  std::optional<core::WallTime> until;
};

// `quell replay --messages`: the observations of `input`, in time order, applied through the
// same PollApplier `quell apply` uses into `store`, with `dispatcher` (whose channels are
// RecordingChannels, all listed in `recorders`) run on `clock` set to each line's time before the
// lines of that time are applied, and once more at the last line's time. An operator action in
// the input is applied through `operators` (over the same store) at its time, after the
// observations before it, so an ack, a resolve by hand or a silence acts as it would have in
// the daemon. After the input, with options.until, the clock moves on from one due time to the
// next up to `until`, as an idle daemon's would (no observation is invented: a renotify needs a
// poll), and past that, unprinted, to the first message left out (first_left_out()). Every
// message delivered goes to `sink`, in the order it became due. Errors: the
// input's kInvalidArgument (naming the line), kInvalidArgument naming the line of an action
// that cannot be applied (an ack with no open incident under its key, ...), the store's.
// Not thread-safe.
class MessageReplay {
 public:
  MessageReplay(core::IncidentStore& store, const core::PayloadEncoder& encoder,
                OperatorCommands& operators, Dispatcher& dispatcher, VirtualClock& clock,
                std::vector<RecordingChannel*> recorders, MessageReplayOptions options);

  core::Status Run(ReplayInput& input, ReplayedMessageSink& sink);

  // After Run: when the first message it left out (due after the last line, or after `until`)
  // would have been sent; nullopt when none. Lets the caller say what the replay left out.
  std::optional<core::WallTime> first_left_out() const { return first_left_out_; }

 private:
  core::Status ApplyBatch(std::vector<core::Observation>& batch, core::WallTime at);
  core::Status ApplyAction(const OperatorAction& action);
  // Runs the dispatcher at the clock's time until nothing more is claimed; notes in
  // dispatcher_due_ the earliest later time it asked to be run again (a group's wait, a retry).
  core::Status Deliver(ReplayedMessageSink& sink);
  // Moves the clock to `at` through every due time before it, delivering at each, as the
  // daemon would have sent them: a message is rendered at the time it went out.
  core::Status DeliverUpTo(core::WallTime at, ReplayedMessageSink& sink);
  // The earliest time after the clock's at which something falls due: a pending row's next
  // attempt or what the dispatcher asked for. nullopt when nothing waits.
  core::Result<std::optional<core::WallTime>> NextDue();
  // How many inhibitors deep `condition` is: 0 for one no other condition inhibits.
  uint32_t InhibitionDepth(std::string_view condition) const;

  core::IncidentStore& store_;
  const core::PayloadEncoder& encoder_;
  OperatorCommands& operators_;
  Dispatcher& dispatcher_;
  VirtualClock& clock_;
  std::vector<RecordingChannel*> recorders_;
  MessageReplayOptions options_;
  uint64_t polls_ = 0;
  std::optional<core::WallTime> dispatcher_due_;
  std::optional<core::WallTime> first_left_out_;
};

}  // namespace quell::app
