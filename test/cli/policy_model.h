// A reference model of quell's notification policy, written from DESIGN.md and docs/
// (configuration.md, channels.md, operations.md), for the model-based test: fed a trace, it
// says which messages each channel receives. It shares no code with quell's policy: a rule
// stated twice, independently, disagrees where one of the two is wrong.
//
// What it covers: the pending period, cooldown renotifies, the healthy streak, acks, resolves by
// hand and their hold, silences, a maintenance window, inhibition, escalation tiers and
// grouping. Not covered: routes, shadow mode, flap damping, renotify limits, tenant budgets.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "policy_trace.h"

namespace quell::testing::policy {

struct Member {
  std::string key;
  std::string transition;  // open, renotify, resolve
  auto operator<=>(const Member&) const = default;
};

// One message a channel receives, as `quell replay --messages` prints it.
struct Message {
  Seconds at = 0;  // when it fell due
  std::string channel;
  std::string group_key;          // a group message's; empty for a single transition
  std::vector<Member> members;    // sorted; a single transition's one
  std::optional<int> open_after;  // group messages: keys of the group still open

  auto operator<=>(const Message&) const = default;
  std::string Describe() const;
};

class PolicyModel {
 public:
  explicit PolicyModel(PolicyConfig config);

  // Feeds the next line (in time order): what fell due before it is delivered first, as in
  // the daemon. False, with a reason, for an action quell refuses: an ack or a resolve of a key
  // that is not open.
  bool Feed(const TraceLine& line, std::string* refused = nullptr);
  // Runs the clock on past the last line up to `until`, delivering what falls due.
  void Finish(Seconds until);

  bool IsOpen(const std::string& key) const;
  const std::vector<Message>& messages() const { return messages_; }

 private:
  enum class Told {
    kNone,       // no open on this channel (a tier whose time has not come, ...)
    kScheduled,  // a tier's open, due at `due`
    kSent,       // the open went out (or waits in its group)
    kSilenced,   // the open fell in a silence
    kOwed,       // the open was held (maintenance, inhibition): sent when the hold ends
    kCancelled,  // a tier's open cancelled by an ack or a resolve
  };
  struct ChannelState {
    Told told = Told::kNone;
    Seconds due = 0;
    bool silenced_at_open = false;  // kScheduled: the tier's open was written in a silence
    bool heard = false;  // a message of this generation went (or waits in its group) here
  };
  struct Incident {
    std::string key;
    bool open = false;
    int generation = 0;
    int pending = 0;  // unhealthy polls in a row while not open
    int healthy = 0;  // healthy polls in a row while open
    Seconds opened_at = 0;
    Seconds last_notified = 0;
    bool acked = false;
    bool held = false;  // resolved by hand and not seen healthy since
    std::optional<Seconds> held_until;
    std::map<std::string, ChannelState> channels;  // this generation's, by channel
  };
  struct Waiting {
    Member member;
    Seconds created = 0;
  };
  struct Group {
    std::vector<Waiting> waiting;
    std::optional<Seconds> last_due;
    std::map<std::string, std::string> latest;  // key -> its latest transition sent
  };
  struct Silence {
    std::string pattern;
    bool exact = false;
    Seconds from = 0;
    Seconds until = 0;
  };
  enum class Cause { kPoll, kHand };

  void Deliver(Seconds now);
  // Runs the clock to `at` through every due time before it, delivering at each.
  void DeliverUpTo(Seconds at);
  bool ApplyLine(const TraceLine& line, std::string* refused);
  std::optional<Seconds> NextDue(Seconds after) const;
  void Observe(const TraceLine& line);
  void AnnounceOwedOpen(Incident& incident, Seconds now);
  void Transition(Incident& incident, const std::string& kind, Seconds now, Cause cause);
  void Emit(Incident& incident, const std::string& channel, const std::string& kind, Seconds now,
            bool may_group);
  void CancelScheduled(Incident& incident);

  bool Silenced(const std::string& key, Seconds now) const;
  bool Muted(const std::string& key, Seconds now) const;
  bool Inhibited(const std::string& key) const;
  std::string GroupKeyOf(const std::string& key, const GroupSpec& group) const;

  PolicyConfig config_;
  Seconds clock_ = 0;
  bool in_poll_ = false;  // the last line fed was an observation at poll_at_
  Seconds poll_at_ = 0;
  std::map<std::string, Incident> incidents_;
  std::vector<Silence> silences_;
  std::map<std::pair<std::string, std::string>, Group> groups_;  // (channel, group key)
  std::vector<Message> messages_;
};

}  // namespace quell::testing::policy
