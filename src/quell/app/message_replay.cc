#include "quell/app/message_replay.h"

#include <algorithm>
#include <span>
#include <tuple>
#include <utility>

#include "quell/app/vector_observation_stream.h"

namespace quell::app {
namespace {

class DiscardSink : public DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision&) override {}
  void Reset() override {}
};

// Keeps when the first message it is given became due.
class FirstMessage : public ReplayedMessageSink {
 public:
  void OnMessage(core::WallTime when, const core::Delivery&) override {
    if (!at) at = when;
  }
  std::optional<core::WallTime> at;
};

// Due times in a row that send nothing (a tier row cancelled by an ack, an empty dead-letter
// notice) before the search for a message left out gives up; it only feeds a hint.
constexpr uint32_t kMaxQuietSteps = 10000;

}  // namespace

void VirtualClock::Set(core::WallTime at) {
  std::lock_guard lock(mutex_);
  now_ = std::max(now_, at);
}

core::WallTime VirtualClock::Now() {
  std::lock_guard lock(mutex_);
  return now_;
}

core::MonoTime VirtualClock::Monotonic() {
  std::lock_guard lock(mutex_);
  return core::MonoTime(now_ - start_);
}

void VirtualClock::SleepFor(core::Duration d) {
  std::lock_guard lock(mutex_);
  if (d > core::Duration::zero()) now_ += d;
}

core::SendOutcome RecordingChannel::Send(const core::Delivery& delivery) {
  std::lock_guard lock(mutex_);
  sent_.push_back(delivery);
  return core::SendOutcome::Sent("replay-" + delivery.row.idempotency_key);
}

std::vector<core::Delivery> RecordingChannel::Take() {
  std::lock_guard lock(mutex_);
  return std::exchange(sent_, {});
}

MessageReplay::MessageReplay(core::IncidentStore& store, const core::PayloadEncoder& encoder,
                             OperatorCommands& operators, Dispatcher& dispatcher,
                             VirtualClock& clock, std::vector<RecordingChannel*> recorders,
                             MessageReplayOptions options)
    : store_(store),
      encoder_(encoder),
      operators_(operators),
      dispatcher_(dispatcher),
      clock_(clock),
      recorders_(std::move(recorders)),
      options_(std::move(options)) {}

core::Status MessageReplay::Run(ReplayInput& input, ReplayedMessageSink& sink) {
  std::vector<core::Observation> batch;
  ReplayItem item;
  for (;;) {
    auto more = input.Next(item);
    if (!more) return more.error();
    // A batch is every consecutive line of one instant: what one poll would have seen. An
    // action ends it, so the observations before the action are applied before it.
    if (!batch.empty() && (!*more || item.is_action || item.observation.at != batch.front().at)) {
      const core::WallTime at = batch.front().at;
      if (auto delivered = DeliverUpTo(at, sink); !delivered) return delivered;
      if (auto applied = ApplyBatch(batch, at); !applied) return applied;
      // What the poll wrote for now goes out now, as the daemon sends after a commit.
      if (auto delivered = Deliver(sink); !delivered) return delivered;
      batch.clear();
    }
    if (!*more) break;
    if (item.is_action) {
      // What was due before the action goes out first, as it would have in the daemon.
      if (auto delivered = DeliverUpTo(item.action.at, sink); !delivered) return delivered;
      if (auto applied = ApplyAction(item.action); !applied) return applied;
      if (auto delivered = Deliver(sink); !delivered) return delivered;
      continue;
    }
    batch.push_back(item.observation);
  }
  // The last round, at the last line's time; then each later due time in turn: up to `until`
  // printed, past it only until the first message left out, to say when that would have come.
  if (auto delivered = Deliver(sink); !delivered) return delivered;
  FirstMessage left_out;
  for (uint32_t quiet = 0; quiet < kMaxQuietSteps;) {
    auto next = NextDue();
    if (!next) return next.error();
    if (!*next) return {};
    const bool printed = options_.until && **next <= *options_.until;
    if (!printed) ++quiet;
    clock_.Set(**next);
    if (auto delivered = Deliver(printed ? sink : left_out); !delivered) return delivered;
    if (left_out.at) {
      first_left_out_ = left_out.at;
      return {};
    }
  }
  return {};
}

core::Status MessageReplay::DeliverUpTo(core::WallTime at, ReplayedMessageSink& sink) {
  for (;;) {
    auto next = NextDue();
    if (!next) return next.error();
    if (!*next || **next >= at) break;
    clock_.Set(**next);
    if (auto delivered = Deliver(sink); !delivered) return delivered;
  }
  clock_.Set(at);
  return Deliver(sink);
}

core::Result<std::optional<core::WallTime>> MessageReplay::NextDue() {
  const core::WallTime now = clock_.Now();
  std::optional<core::WallTime> next;
  const auto consider = [&](core::WallTime at) {
    if (at > now && (!next || at < *next)) next = at;
  };
  if (dispatcher_due_) consider(*dispatcher_due_);
  auto pending = store_.ListOutbox(core::OutboxStatus::kPending);
  if (!pending) return pending.error();
  for (const core::OutboxRow& row : *pending) consider(row.next_attempt_at);
  return next;
}

core::Status MessageReplay::ApplyAction(const OperatorAction& action) {
  // The clock never goes back: an action older than the line before it acts at that line's time.
  const core::WallTime now = clock_.Now();
  core::Status applied;
  const char* verb = "ack";
  switch (action.kind) {
    case OperatorAction::Kind::kAck: {
      auto acked = operators_.Ack(action.key, action.by, now);
      if (!acked) applied = acked.error();
      break;
    }
    case OperatorAction::Kind::kResolve: {
      verb = "resolve";
      auto resolved = operators_.Resolve(action.key, action.by, now,
                                         ResolveOptions{.hold_for = action.hold_for});
      if (!resolved) applied = resolved.error();
      break;
    }
    case OperatorAction::Kind::kSilence: {
      verb = "silence";
      if (action.until <= now) {
        applied =
            core::MakeError(core::ErrorCode::kInvalidArgument,
                            "\"until\" " + core::FormatRfc3339(action.until) +
                                " is not after the replay's time " + core::FormatRfc3339(now));
        break;
      }
      auto added = operators_.AddSilence(action.match, action.key, action.until - now,
                                         action.reason, action.by, now);
      if (!added) applied = added.error();
      break;
    }
  }
  if (applied) return {};
  // The operator's input was wrong for the history it was set in: say where.
  return core::MakeError(
      core::ErrorCode::kInvalidArgument,
      action.where + ": " + verb + " of \"" + action.key + "\": " + applied.error().message);
}

core::Status MessageReplay::ApplyBatch(std::vector<core::Observation>& batch, core::WallTime at) {
  // One poll per condition, as the poller applies them, each under its condition's options;
  // an inhibitor's before the conditions it inhibits, so an instant that opens both holds the
  // dependent one, as a daemon polling the inhibitor first would.
  std::map<std::string, uint32_t, std::less<>> depth;
  for (const core::Observation& o : batch) {
    if (!depth.contains(o.condition)) depth.emplace(o.condition, InhibitionDepth(o.condition));
  }
  std::stable_sort(batch.begin(), batch.end(),
                   [&depth](const core::Observation& a, const core::Observation& b) {
                     const uint32_t depth_a = depth.find(a.condition)->second;
                     const uint32_t depth_b = depth.find(b.condition)->second;
                     return std::tie(depth_a, a.condition) < std::tie(depth_b, b.condition);
                   });
  DiscardSink discard;
  for (size_t start = 0; start < batch.size();) {
    size_t end = start;
    while (end < batch.size() && batch[end].condition == batch[start].condition) ++end;
    ApplyOptions apply = options_.defaults;
    if (const auto it = options_.conditions.find(batch[start].condition);
        it != options_.conditions.end()) {
      apply.policy = it->second.policy;
      apply.channels = it->second.channels;
      apply.escalation = it->second.escalation;
      apply.routes = it->second.routes;
      apply.inhibited_by = it->second.inhibited_by;
      apply.shadow = it->second.shadow;
    }
    // One condition's lines of the instant; read again from the start if the applier retries.
    VectorObservationStream stream(
        std::span<const core::Observation>(batch).subspan(start, end - start));
    PollApplier applier(store_, encoder_, std::move(apply));
    auto applied = applier.Apply(stream, "replay-" + std::to_string(++polls_), at, discard);
    if (!applied) return applied.error();
    start = end;
  }
  return {};
}

uint32_t MessageReplay::InhibitionDepth(std::string_view condition) const {
  // The longest chain of inhibited_by below `condition`; the config refuses cycles, and the
  // bound keeps a hand-made options map from recursing forever.
  const auto depth = [this](const auto& self, std::string_view name, uint32_t bound) -> uint32_t {
    const auto it = options_.conditions.find(name);
    if (it == options_.conditions.end() || bound == 0) return 0;
    uint32_t deepest = 0;
    for (const core::Inhibition& rule : it->second.inhibited_by) {
      deepest = std::max(deepest, 1 + self(self, rule.condition, bound - 1));
    }
    return deepest;
  };
  return depth(depth, condition, static_cast<uint32_t>(options_.conditions.size()));
}

core::Status MessageReplay::Deliver(ReplayedMessageSink& sink) {
  std::vector<core::Delivery> sent;
  const core::WallTime now = clock_.Now();
  dispatcher_due_.reset();
  for (uint32_t round = 0;; ++round) {
    if (round == options_.max_rounds_per_instant) {
      return core::MakeError(core::ErrorCode::kInternal, "the outbox did not drain at one instant");
    }
    const DispatchReport report = dispatcher_.RunOnce();
    if (!report.store_error.empty()) {
      return core::MakeError(core::ErrorCode::kUnavailable, report.store_error);
    }
    // A full claim asks for "now" again; only a later time is worth remembering.
    if (report.next_due && *report.next_due > now &&
        (!dispatcher_due_ || *report.next_due < *dispatcher_due_)) {
      dispatcher_due_ = report.next_due;
    }
    for (RecordingChannel* recorder : recorders_) {
      std::vector<core::Delivery> taken = recorder->Take();
      sent.insert(sent.end(), std::make_move_iterator(taken.begin()),
                  std::make_move_iterator(taken.end()));
    }
    if (report.claimed == 0) break;
  }
  // Sends finish in any order on the worker threads, and a round claims in the outbox's key
  // order: print by due time, then as the outbox orders rows.
  std::sort(sent.begin(), sent.end(), [](const core::Delivery& a, const core::Delivery& b) {
    return std::tie(a.row.next_attempt_at, a.row.channel, a.row.key, a.row.generation,
                    a.row.version) < std::tie(b.row.next_attempt_at, b.row.channel, b.row.key,
                                              b.row.generation, b.row.version);
  });
  for (const core::Delivery& delivery : sent)
    sink.OnMessage(delivery.row.next_attempt_at, delivery);
  return {};
}

}  // namespace quell::app
