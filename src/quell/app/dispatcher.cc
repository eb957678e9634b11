#include "quell/app/dispatcher.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "quell/app/bounded_parallel.h"
#include "quell/app/split_mix.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/group_plan.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/delivery/tenant_budget.h"

namespace quell::app {
namespace {

// Hands the worker threads' results to the dispatcher's thread, which alone records them.
template <typename Item>
class CompletionQueue {
 public:
  void Push(Item item) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      items_.push_back(std::move(item));
    }
    ready_.notify_one();
  }
  void Close() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_one();
  }
  std::vector<Item> TryTake() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(items_, {});
  }
  // Blocks until something is ready; empty once closed and drained.
  std::vector<Item> WaitTake() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return !items_.empty() || closed_; });
    return std::exchange(items_, {});
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<Item> items_;
  bool closed_ = false;
};

}  // namespace

Dispatcher::Dispatcher(core::OutboxStore& store, const core::MessageRenderer& renderer,
                       core::HttpBatchClient& http, core::Clock& clock, DispatcherOptions options)
    : store_(store),
      renderer_(renderer),
      http_(http),
      clock_(clock),
      options_(std::move(options)),
      random_state_(options_.seed) {}

Dispatcher::~Dispatcher() {
  if (!claimed_ahead_.valid()) return;
  Claim rows = claimed_ahead_.get().rows;
  if (!rows || rows->empty()) return;
  // Unsent: back to pending now, without using up an attempt, rather than held for a lease.
  std::vector<core::OutboxOutcome> release(rows->size());
  const core::WallTime now = clock_.Now();
  for (size_t i = 0; i < rows->size(); ++i) {
    release[i].kind = core::OutboxOutcome::Kind::kDefer;
    release[i].idempotency_key = (*rows)[i].idempotency_key;
    release[i].next_attempt_at = now;
  }
  (void)store_.RecordOutcomes(options_.owner, release, now);
}

void Dispatcher::AddHttpChannel(std::string name, std::string type,
                                const core::HttpChannel& channel, ChannelLimits limits) {
  limits.concurrency = std::max<uint32_t>(limits.concurrency, 1);
  Route route{.type = std::move(type),
              .http = &channel,
              .channel = nullptr,
              .limits = limits,
              .lane = static_cast<uint32_t>(lane_limits_.size())};
  lane_limits_.push_back(limits.concurrency);
  routes_.insert_or_assign(std::move(name), std::move(route));
}

void Dispatcher::AddChannel(std::string name, std::string type, core::Channel& channel,
                            ChannelLimits limits) {
  limits.concurrency = std::max<uint32_t>(limits.concurrency, 1);
  routes_.insert_or_assign(std::move(name), Route{.type = std::move(type),
                                                  .http = nullptr,
                                                  .channel = &channel,
                                                  .limits = limits,
                                                  .lane = 0});
}

DispatchReport Dispatcher::RunOnce() {
  DispatchReport report;
  const core::WallTime now = clock_.Now();
  AssembleGroups(now, report);
  // With a claim ahead, outcomes are written on another connection than store_, so this
  // thread may use store_ for the next batch while they are written.
  OutcomeRecorder recorder(
      RecordStore(), clock_, options_.owner, options_.record_every,
      DeadLetterRoute{options_.dead_letter_channel, options_.dead_letter_interval}, report,
      RecordTurns());
  // Every batch of the round, kept until the recorder is flushed: it points at their rows.
  std::vector<std::vector<Attempt>> batches;
  const size_t most = std::max<uint32_t>(options_.batches_per_round, 1);
  const core::MonoTime started = clock_.Monotonic();
  bool full = false;
  while (batches.size() < most) {
    std::vector<Attempt>& attempts = batches.emplace_back();
    const std::optional<size_t> claimed =
        SendBatch(batches.size() == 1 ? now : clock_.Now(), recorder, attempts, report);
    if (!claimed) {
      if (batches.size() == 1) return report;
      break;
    }
    full = *claimed >= options_.claim_batch;
    // Only a batch claimed ahead is worth going on with: it is rendered already, and its
    // claim kept the store's order guard against the batch before it.
    if (!full || !claimed_ahead_.valid() || !report.store_error.empty() ||
        clock_.Monotonic() - started >= options_.round_time) {
      break;
    }
  }
  recorder.Flush();
  TrimWhenDue(now, report);
  if (full) report.next_due = now;
  return report;
}

std::optional<size_t> Dispatcher::SendBatch(core::WallTime now, OutcomeRecorder& recorder,
                                            std::vector<Attempt>& attempts,
                                            DispatchReport& report) {
  AheadBatch batch =
      claimed_ahead_.valid()
          ? claimed_ahead_.get()
          : AheadBatch{store_.ClaimDue(options_.owner, now, options_.lease, options_.claim_batch),
                       {}};
  Claim& claimed = batch.rows;
  if (!claimed) {
    report.errors.push_back("claim: " + claimed.error().message);
    report.store_error = report.errors.back();
    return std::nullopt;
  }
  const size_t count = claimed->size();
  report.claimed += count;
  CheckTiersAgain(*claimed, now, report);
  if (claim_ahead_store_ != nullptr && count >= options_.claim_batch) {
    // A full batch: more is probably due. This batch's rows are in flight already, so the
    // claim ahead cannot take a younger sibling of one of them.
    claimed_ahead_ = std::async(std::launch::async, [this] { return ClaimAhead(); });
  }
  attempts = Prepare(std::move(*claimed), std::move(batch.rendered), report);
  // Rows a pacing rule holds go straight back to pending; the rest are sent.
  for (Attempt& attempt : attempts) {
    if (attempt.deferred) recorder.Add(attempt.delivery.row, std::move(*attempt.deferred));
  }
  Deliver(attempts, [&](Attempt& attempt, const core::SendOutcome& sent) {
    const ChannelLimits limits = attempt.route != nullptr ? attempt.route->limits : ChannelLimits{};
    recorder.Add(attempt.delivery.row, DecideOutcome(attempt.delivery.row, sent, limits,
                                                     clock_.Now(), SplitMix64(random_state_)));
  });
  return count;
}

void Dispatcher::CheckTiersAgain(std::vector<core::OutboxRow>& rows, core::WallTime now,
                                 DispatchReport& report) {
  const auto tiered = [](const core::OutboxRow& row) { return row.tier > 0; };
  if (std::none_of(rows.begin(), rows.end(), tiered)) return;
  // An ack or resolve may have committed since the claim: a later tier must not page after it.
  // A write: it takes its turn with the outcomes of the round's earlier batches.
  std::unique_lock<std::mutex> turn(store_writes_, std::defer_lock);
  if (options_.writers_take_turns) turn.lock();
  auto cancelled = store_.CancelUnwantedTierRows(options_.owner, rows, now);
  if (turn.owns_lock()) turn.unlock();
  if (!cancelled) {
    report.errors.push_back("escalation check: " + cancelled.error().message);
    std::erase_if(rows, tiered);
    return;
  }
  std::erase_if(rows, [&](const core::OutboxRow& row) {
    return std::find(cancelled->begin(), cancelled->end(), row.idempotency_key) != cancelled->end();
  });
}

void Dispatcher::AssembleGroups(core::WallTime now, DispatchReport& report) {
  const bool grouped = std::any_of(routes_.begin(), routes_.end(), [](const auto& route) {
    return route.second.limits.grouping.has_value();
  });
  if (!grouped && groups_checked_) return;
  groups_checked_ = true;
  auto waiting = store_.WaitingGroups();
  if (!waiting) {
    report.errors.push_back("groups: " + waiting.error().message);
    return;
  }
  for (const core::WaitingGroup& group : *waiting) {
    // Members left waiting on a channel that no longer groups (or no longer exists) go out
    // now in one last group message rather than never.
    const auto route = routes_.find(group.channel);
    const core::GroupPolicy policy =
        route != routes_.end() && route->second.limits.grouping
            ? *route->second.limits.grouping
            : core::GroupPolicy{.group_by = {},
                                .group_wait = core::Duration::zero(),
                                .group_interval = core::Duration::zero()};
    // The listing only says when to look again; whether a message is due, and what it says,
    // the core decides on the facts the store reads inside the message's own transaction.
    const core::WallTime due = core::GroupDueAt(policy, group.first_waiting, group.last_message_at);
    if (due > now) {
      if (!report.next_due || due < *report.next_due) report.next_due = due;
      continue;
    }
    auto built =
        store_.AssembleGroup(group.channel, group.group_key, now,
                             core::GroupPlannerFor(policy.group_wait, policy.group_interval));
    if (!built) {
      report.errors.push_back("group " + group.channel + " " + group.group_key + ": " +
                              built.error().message);
    } else if (*built) {
      ++report.groups_built;
    }
  }
}

void Dispatcher::PrepareGroup(Attempt& attempt, core::WallTime now, DispatchReport& report) {
  core::OutboxRow& row = attempt.delivery.row;
  auto members = store_.GroupMembers(row.idempotency_key);
  // The counts the message states are the store's now, not the assembly's: a member may have
  // resolved, or a silence begun, while the message waited (a retry, SMS pacing).
  auto standing = members ? store_.GroupStandingAt(row.channel, core::GroupKeyOfRow(row), now)
                          : core::Result<core::GroupStanding>(members.error());
  if (!members || !standing) {
    // Transient (the store is busy): try again shortly rather than lose the message.
    const std::string error = (members ? standing.error() : members.error()).message;
    report.errors.push_back(row.idempotency_key + ": group: " + error);
    core::OutboxOutcome retry;
    retry.kind = core::OutboxOutcome::Kind::kDefer;
    retry.idempotency_key = row.idempotency_key;
    retry.error = "group: " + error;
    retry.next_attempt_at = clock_.Now() + std::chrono::seconds(5);
    attempt.deferred = std::move(retry);
    return;
  }
  // The channel's renderer lists the members its own way (and within its limits).
  row.payload = core::GroupPayload(row, *members, *standing);
}

void Dispatcher::TrimWhenDue(core::WallTime now, DispatchReport& report) {
  // The cadence is measured in monotonic time; the cut-off is a wall time, as the rows store.
  const core::MonoTime mono = clock_.Monotonic();
  if (!options_.outbox_retention || (next_trim_ && mono < *next_trim_)) return;
  const size_t batch = std::max<size_t>(options_.trim_batch, 1);
  // One short transaction per batch, so a poll's writes wait for one batch at most; a
  // backlog (the first round after an upgrade) is worked off over several rounds, between
  // sends, instead of in one long stall.
  for (uint32_t i = 0; i < std::max<uint32_t>(options_.trim_batches, 1); ++i) {
    auto trimmed = store_.TrimOutbox(now - *options_.outbox_retention, batch);
    if (!trimmed) {
      report.errors.push_back("outbox retention: " + trimmed.error().message);
      next_trim_ = mono + options_.trim_interval;
      return;
    }
    report.trimmed += *trimmed;
    if (*trimmed < batch) {
      next_trim_ = mono + options_.trim_interval;
      return;
    }
  }
  next_trim_ = mono;  // more to delete: again next round
}

core::OutboxStore& Dispatcher::RecordStore() {
  if (record_store_ != nullptr) return *record_store_;
  return claim_ahead_store_ != nullptr ? *claim_ahead_store_ : store_;
}

std::mutex* Dispatcher::RecordTurns() {
  // Without a connection of their own, outcomes share the claim ahead's: one user at a time.
  return options_.writers_take_turns || record_store_ == nullptr ? &store_writes_ : nullptr;
}

Dispatcher::AheadBatch Dispatcher::ClaimAhead() {
  AheadBatch batch{[this] {
                     std::unique_lock<std::mutex> lock(store_writes_, std::defer_lock);
                     if (RecordTurns() != nullptr) lock.lock();
                     return claim_ahead_store_->ClaimDue(options_.owner, clock_.Now(),
                                                         options_.lease, options_.claim_batch);
                   }(),
                   {}};
  if (!batch.rows) return batch;
  const core::WallTime now = clock_.Now();
  for (const core::OutboxRow& row : *batch.rows) {
    const auto route = routes_.find(row.channel);
    if (route == routes_.end() || row.kind != core::OutboxRowKind::kIncident) {
      continue;  // Prepare sees to these, with the store's help
    }
    batch.rendered.emplace(row.idempotency_key, ReadAndRender(route->second.type, row, now));
  }
  return batch;
}

core::Result<Dispatcher::ReadMessage> Dispatcher::ReadAndRender(std::string_view channel_type,
                                                                const core::OutboxRow& row,
                                                                core::WallTime now) const {
  auto content = renderer_.Decode(row);
  if (!content) return content.error();
  auto message = renderer_.RenderMessage(channel_type, row, *content, now);
  if (!message) return message.error();
  return ReadMessage{std::move(*content), std::move(*message)};
}

void Dispatcher::TakeRead(Attempt& attempt, core::Result<ReadMessage> read) {
  if (!read) {
    attempt.failed = core::SendOutcome::Permanent("render: " + read.error().message);
    return;
  }
  attempt.delivery.content = std::move(read->content);
  attempt.delivery.message = std::move(read->message);
}

std::vector<Dispatcher::Attempt> Dispatcher::Prepare(std::vector<core::OutboxRow> rows,
                                                     Rendered ahead, DispatchReport& report) {
  const core::WallTime now = clock_.Now();
  std::vector<Attempt> attempts(rows.size());
  std::vector<Attempt*> to_render;
  to_render.reserve(rows.size());
  // The store is this thread's: every lookup happens here, before and after the render.
  for (size_t i = 0; i < rows.size(); ++i) {
    Attempt& attempt = attempts[i];
    attempt.delivery.row = std::move(rows[i]);
    const core::OutboxRow& row = attempt.delivery.row;
    const auto route = routes_.find(row.channel);
    if (route == routes_.end()) {
      // A channel removed from the config: nothing can ever send the row.
      attempt.failed =
          core::SendOutcome::Permanent("no channel named \"" + row.channel + "\" is configured");
      continue;
    }
    attempt.route = &route->second;
    if (core::IsGroupRow(row)) {
      PrepareGroup(attempt, now, report);
      if (!attempt.deferred) to_render.push_back(&attempt);
      continue;
    }
    if (core::IsDigestRow(row)) {
      PrepareDigest(attempt, report);
      continue;
    }
    if (core::IsDeadLetterRow(row)) {
      PrepareDeadLetter(attempt, report);
      continue;
    }
    if (row.transition != core::TransitionKind::kOpen) {
      auto thread = store_.ThreadRemoteId(row.key, row.generation, row.channel);
      if (thread) {
        attempt.delivery.thread_remote_id = std::move(*thread);
      } else {
        report.errors.push_back(row.idempotency_key + ": thread: " + thread.error().message);
      }
    }
    to_render.push_back(&attempt);
  }

  // Each payload is read once into the typed message the renderer and then the channel take
  // (core::Delivery::content); digests and dead-letter notices, rendered above, are read for
  // the channels too. Reading and rendering are most of a row's cost and touch nothing shared,
  // so they run on the spare core while the batch is not yet on the wire, or were already done
  // on the claim ahead's thread (`ahead`).
  for (Attempt* attempt : to_render) attempt->render = true;
  std::vector<Attempt*> to_read;
  to_read.reserve(attempts.size());
  for (Attempt& attempt : attempts) {
    if (attempt.route == nullptr || attempt.failed || attempt.deferred) continue;
    const auto it = attempt.render ? ahead.find(attempt.delivery.row.idempotency_key) : ahead.end();
    if (it == ahead.end()) {
      to_read.push_back(&attempt);
    } else {
      TakeRead(attempt, std::move(it->second));
    }
  }
  ForEachBounded(to_read.size(), options_.prepare_threads, [&](size_t i) {
    Attempt& attempt = *to_read[i];
    if (attempt.render) {
      TakeRead(attempt, ReadAndRender(attempt.route->type, attempt.delivery.row, now));
      return;
    }
    auto content = renderer_.Decode(attempt.delivery.row);  // a digest or notice: read only
    if (content) {
      attempt.delivery.content = std::move(*content);
    } else {
      attempt.failed = core::SendOutcome::Permanent("render: " + content.error().message);
    }
  });

  // Pacing reads the severity the render chose and this batch's earlier sends, in row order.
  std::map<const Route*, std::vector<core::WallTime>> planned;
  for (Attempt* attempt : to_render) {
    if (!attempt->failed && attempt->route->limits.pacing) {
      ApplyPacing(*attempt, planned, now, report);
    }
  }
  return attempts;
}

void Dispatcher::PrepareDigest(Attempt& attempt, DispatchReport& report) {
  core::OutboxRow& row = attempt.delivery.row;
  const core::BudgetWindow window = core::DigestWindow(row);
  auto folded = store_.FoldedRows(row.channel, core::DigestTenant(row), window.start, window.end);
  if (!folded) {
    // Transient (the store is busy): try again shortly rather than lose the digest.
    report.errors.push_back(row.idempotency_key + ": digest: " + folded.error().message);
    core::OutboxOutcome retry;
    retry.kind = core::OutboxOutcome::Kind::kDefer;
    retry.idempotency_key = row.idempotency_key;
    retry.error = "digest: " + folded.error().message;
    retry.next_attempt_at = clock_.Now() + std::chrono::seconds(5);
    attempt.deferred = std::move(retry);
    return;
  }
  attempt.delivery.message = core::DigestMessage(row, *folded);
  row.payload = core::DigestPayload(row, *folded);
}

void Dispatcher::ApplyPacing(Attempt& attempt,
                             std::map<const Route*, std::vector<core::WallTime>>& planned,
                             core::WallTime now, DispatchReport& report) {
  const Route* route = attempt.route;
  const core::SmsPacingRules& rules = *route->limits.pacing;
  auto [it, fresh] = planned.try_emplace(route);
  if (fresh) {
    // The recipient's sends of the last day, once per batch; this batch's sends are appended.
    auto sent = store_.SentTimes(attempt.delivery.row.channel, now - std::chrono::hours(24));
    if (sent) {
      it->second = std::move(*sent);
    } else {
      report.errors.push_back(attempt.delivery.row.channel +
                              ": sent times: " + sent.error().message);
    }
  }
  const core::SmsPacingDecision decision =
      core::DecideSmsPacing(rules, it->second, attempt.delivery.message.severity, now);
  if (decision.send_now) {
    it->second.push_back(now);
    return;
  }
  core::OutboxOutcome defer;
  defer.kind = core::OutboxOutcome::Kind::kDefer;
  defer.idempotency_key = attempt.delivery.row.idempotency_key;
  defer.error = "deferred: " + decision.reason;
  defer.next_attempt_at = decision.defer_until;
  attempt.deferred = std::move(defer);
}

void Dispatcher::Deliver(std::vector<Attempt>& attempts, const Done& done) {
  std::vector<core::HttpExchange> exchanges;
  std::vector<Attempt*> exchanged;  // exchanges[i] sends exchanged[i]
  std::map<const Route*, std::vector<Attempt*>> by_channel;
  std::vector<Attempt*> to_encode;
  for (Attempt& attempt : attempts) {
    if (attempt.deferred) {
      continue;  // its outcome is known already
    } else if (attempt.failed) {
      done(attempt, *attempt.failed);
    } else if (attempt.route->http != nullptr) {
      to_encode.push_back(&attempt);
    } else {
      by_channel[attempt.route].push_back(&attempt);
    }
  }
  // Encoding (JSON, HMAC) is pure and thread-safe, like the render: the spare core helps.
  const core::WallTime now = clock_.Now();
  std::vector<std::optional<core::Result<core::HttpRequest>>> requests(to_encode.size());
  ForEachBounded(to_encode.size(), options_.prepare_threads, [&](size_t i) {
    requests[i].emplace(to_encode[i]->route->http->Encode(to_encode[i]->delivery, now));
  });
  for (size_t i = 0; i < to_encode.size(); ++i) {
    core::Result<core::HttpRequest>& request = *requests[i];
    if (!request) {
      done(*to_encode[i], core::SendOutcome::Permanent("encode: " + request.error().message));
      continue;
    }
    exchanges.push_back(core::HttpExchange{std::move(*request), to_encode[i]->route->lane});
    exchanged.push_back(to_encode[i]);
  }

  // Blocking channels send on worker threads, at most `concurrency` each, while this thread
  // drives the HTTP batch; results come back here to be recorded.
  using Completion = std::pair<Attempt*, core::SendOutcome>;
  CompletionQueue<Completion> completions;
  std::jthread workers;
  if (by_channel.empty()) {
    completions.Close();
  } else {
    workers = std::jthread([&] {
      const std::vector<std::pair<const Route*, std::vector<Attempt*>>> groups(by_channel.begin(),
                                                                               by_channel.end());
      ForEachBounded(groups.size(), static_cast<uint32_t>(groups.size()), [&](size_t g) {
        const Route* route = groups[g].first;
        const std::vector<Attempt*>& group = groups[g].second;
        ForEachBounded(group.size(), route->limits.concurrency, [&](size_t i) {
          completions.Push({group[i], route->channel->Send(group[i]->delivery)});
        });
      });
      completions.Close();
    });
  }
  const auto drain = [&](const std::vector<Completion>& ready) {
    for (const auto& [attempt, outcome] : ready) done(*attempt, outcome);
  };
  if (!exchanges.empty()) {
    http_.SendAll(
        exchanges, lane_limits_, [&](size_t index, core::Result<core::HttpResponse> response) {
          Attempt& attempt = *exchanged[index];
          done(attempt, response ? attempt.route->http->Decode(attempt.delivery, *response)
                                 : TransportOutcome(response.error()));
          drain(completions.TryTake());
        });
  }
  for (auto ready = completions.WaitTake(); !ready.empty(); ready = completions.WaitTake()) {
    drain(ready);
  }
}

void Dispatcher::PrepareDeadLetter(Attempt& attempt, DispatchReport& report) {
  core::OutboxRow& row = attempt.delivery.row;
  const core::BudgetWindow window = core::DeadLetterWindowOf(row);
  auto dead = store_.DeadRows(window.start, window.end);
  core::OutboxOutcome held;
  held.idempotency_key = row.idempotency_key;
  if (!dead) {
    // Transient (the store is busy): try again shortly rather than lose the notice.
    report.errors.push_back(row.idempotency_key + ": dead letters: " + dead.error().message);
    held.kind = core::OutboxOutcome::Kind::kDefer;
    held.error = "dead letters: " + dead.error().message;
    held.next_attempt_at = clock_.Now() + std::chrono::seconds(5);
    attempt.deferred = std::move(held);
    return;
  }
  // Rows of the dead-letter channel itself are not reported on it (see OutcomeRecorder).
  std::erase_if(*dead, [&](const core::OutboxRow& d) {
    return d.channel == row.channel || core::IsDeadLetterRow(d);
  });
  if (dead->empty()) {
    // Every row of the window was retried or dropped before its end: nothing left to say.
    held.kind = core::OutboxOutcome::Kind::kSent;
    attempt.deferred = std::move(held);
    return;
  }
  attempt.delivery.message = core::DeadLetterMessage(row, *dead);
  row.payload = core::DeadLetterPayload(row, *dead);
}

}  // namespace quell::app
