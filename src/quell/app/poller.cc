#include "quell/app/poller.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

#include "quell/app/apply_options_for.h"
#include "quell/app/bounded_parallel.h"
#include "quell/app/held_decisions.h"
#include "quell/app/poll_leases.h"
#include "quell/app/vector_observation_stream.h"
#include "quell/core/engine/evaluate.h"
#include "quell/core/redact/redact.h"

namespace quell::app {
namespace {

// Conditions asking one source the same question share one answer per cycle.
std::string MetricQueryKey(const core::MetricQuery& query) {
  std::string key = query.expr;
  for (const auto& [name, value] : query.params) {
    key += '\n';
    key += name;
    key += '=';
    key += value;
  }
  return key;
}

// The token `held` gives `lease`: nullopt when the lease is not held; a zero token (unfenced)
// when there is no `held` at all.
std::optional<uint64_t> TokenOf(const HeldLeases* held, const std::string& lease) {
  if (held == nullptr) return uint64_t{0};
  const auto it = held->find(lease);
  if (it == held->end()) return std::nullopt;
  return it->second;
}

// Adds one piece's summary of a poll applied in pieces to the poll's.
void AddPiece(ApplySummary& total, const ApplySummary& piece) {
  const core::PollRecord earlier = total.poll;
  total.poll = piece.poll;
  total.poll.observations += earlier.observations;
  total.poll.changed += earlier.changed;
  total.poll.outbox_rows += earlier.outbox_rows;
  for (size_t k = 0; k < total.poll.by_decision.size(); ++k) {
    total.poll.by_decision[k] += earlier.by_decision[k];
  }
  total.poll_recorded = piece.poll_recorded;
  total.duplicate = total.duplicate || piece.duplicate;
  total.batch_attempts = std::max(total.batch_attempts, piece.batch_attempts);
  total.chunk_retries += piece.chunk_retries;
  total.decisions_pruned += piece.decisions_pruned;
  total.key_groups_pruned += piece.key_groups_pruned;
  total.outbox_silenced += piece.outbox_silenced;
  total.late_opens += piece.late_opens;
  total.outbox_muted += piece.outbox_muted;
  total.maintenance_opens += piece.maintenance_opens;
  total.outbox_inhibited += piece.outbox_inhibited;
  total.inhibition_opens += piece.inhibition_opens;
}

void DropOtherShards(std::vector<core::Incident>& open,
                     const std::function<bool(std::string_view)>& keeps) {
  std::erase_if(open, [&](const core::Incident& incident) { return !keeps(incident.key); });
}

}  // namespace

bool CycleReport::ok() const {
  return std::all_of(conditions.begin(), conditions.end(),
                     [](const ConditionOutcome& c) { return c.source_ok && c.applied; });
}

std::string WatermarkMarkName(const std::string& condition) { return "watermark:" + condition; }

std::string ShadowMarkName(const std::string& condition) { return "shadow:" + condition; }

Poller::Poller(core::IncidentStore& store, const core::PayloadEncoder& encoder, core::Clock& clock,
               PollerOptions options)
    : store_(store), encoder_(encoder), clock_(clock), options_(std::move(options)) {}

void Poller::Watch(const core::ErrorGroupCondition& condition, core::ErrorGroupSource& source,
                   const std::string& source_name) {
  for (PollPart& part : PollPartsOf(condition.common, source_name)) {
    health_lease_.try_emplace(source_name, part.lease);
    error_watches_.push_back(ErrorWatch{condition, &source, source_name, std::move(part)});
  }
}

void Poller::Watch(const core::MetricCondition& condition, core::MetricSource& source,
                   const std::string& source_name) {
  for (PollPart& part : PollPartsOf(condition.common, source_name)) {
    health_lease_.try_emplace(source_name, part.lease);
    metric_watches_.push_back(MetricWatch{condition, &source, source_name, std::move(part)});
  }
}

void Poller::Watch(const core::MonitorCondition& condition, core::MonitorSource& source,
                   const std::string& source_name) {
  for (PollPart& part : PollPartsOf(condition.common, source_name)) {
    health_lease_.try_emplace(source_name, part.lease);
    monitor_watches_.push_back(MonitorWatch{condition, &source, source_name, std::move(part)});
  }
}

void Poller::Watch(const core::PushCondition& condition) {
  for (PollPart& part : PollPartsOf(condition.common, kPushSource)) {
    health_lease_.try_emplace(core::PushSenderName(condition.common.name), part.lease);
    push_watches_.push_back(PushWatch{condition, std::move(part)});
  }
}

std::vector<std::string> Poller::LeaseNames() const {
  std::vector<std::string> names;
  const auto add = [&names](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const ErrorWatch& watch : error_watches_) add(watch.part.lease);
  for (const MetricWatch& watch : metric_watches_) add(watch.part.lease);
  for (const MonitorWatch& watch : monitor_watches_) add(watch.part.lease);
  for (const PushWatch& watch : push_watches_) add(watch.part.lease);
  return names;
}

void Poller::RenewEachCycle(BudgetedHttpClient& http, std::optional<core::Duration> deadline) {
  budgets_.emplace_back(&http, deadline);
}

CycleReport Poller::RunOnce(DecisionSink& sink, const HeldLeases* held) {
  for (const auto& [http, deadline] : budgets_) http->StartPoll(deadline);
  CycleReport report;
  report.at = clock_.Now();
  uint32_t enrich_left = options_.max_enrich;
  cycle_maintenance_ = options_.maintenance;
  if (options_.one_off_maintenance) {
    auto one_off = options_.one_off_maintenance(report.at);
    if (one_off)
      cycle_maintenance_.insert(cycle_maintenance_.end(), one_off->begin(), one_off->end());
  }

  // Each source's poll this cycle as its own incident sees it: failed when any request failed.
  std::map<std::string, core::SourcePoll, std::less<>> source_polls;
  const auto saw = [&source_polls](const std::string& source, bool ok, const std::string& error) {
    core::SourcePoll& poll = source_polls[source];
    poll.source = source;
    if (!ok && poll.ok) {
      poll.ok = false;
      poll.error = error;  // the remote's words; ObserveSourcePoll redacts them
    }
  };

  // The error watches polled, by source in order of first use: one walk of a listing serves
  // every watch of its source. Their outcomes are all in place before any is filled in.
  std::vector<std::pair<core::ErrorGroupSource*, std::vector<std::pair<const ErrorWatch*, size_t>>>>
      by_source;
  for (const ErrorWatch& watch : error_watches_) {
    const std::optional<uint64_t> token = TokenOf(held, watch.part.lease);
    if (!token) continue;  // another instance polls it
    ConditionOutcome& outcome = report.conditions.emplace_back();
    outcome.condition = watch.condition.common.name;
    outcome.source = watch.source_name;
    outcome.lease = watch.part.lease;
    outcome.token = *token;
    auto it = std::find_if(by_source.begin(), by_source.end(),
                           [&watch](const auto& entry) { return entry.first == watch.source; });
    if (it == by_source.end()) it = by_source.insert(by_source.end(), {watch.source, {}});
    it->second.emplace_back(&watch, report.conditions.size() - 1);
  }
  for (auto& [source, watches] : by_source) {
    std::vector<ErrorStream> streams;
    for (const auto& [watch, index] : watches) {
      ErrorStream& stream = streams.emplace_back();
      stream.watch = watch;
      stream.outcome = &report.conditions[index];
    }
    const core::GroupListing walked =
        PollErrorSource(*source, streams, report.at, enrich_left, sink);
    for (const auto& [watch, index] : watches) {
      saw(watch->source_name, walked.complete, walked.error.message);
    }
  }

  std::map<std::pair<core::MetricSource*, std::string>,
           std::unique_ptr<core::Result<core::MetricAnswer>>>
      answers;
  for (const MetricWatch& watch : metric_watches_) {
    const std::optional<uint64_t> token = TokenOf(held, watch.part.lease);
    if (!token) continue;
    auto& answer = answers[{watch.source, MetricQueryKey(watch.condition.query)}];
    if (!answer) {
      answer = std::make_unique<core::Result<core::MetricAnswer>>(
          watch.source->Query(watch.condition.query));
    }
    saw(watch.source_name, answer->ok(), answer->ok() ? std::string() : answer->error().message);
    ConditionOutcome& outcome = report.conditions.emplace_back();
    outcome.condition = watch.condition.common.name;
    outcome.source = watch.source_name;
    outcome.lease = watch.part.lease;
    outcome.token = *token;
    PollMetric(watch, *answer, report.at, sink, outcome);
  }

  std::map<std::pair<core::MonitorSource*, std::string>, core::MonitorListing> monitor_listings;
  for (const MonitorWatch& watch : monitor_watches_) {
    const std::optional<uint64_t> token = TokenOf(held, watch.part.lease);
    if (!token) continue;
    std::string query_key;
    for (const std::string& tag : watch.condition.query.monitor_tags) query_key += tag + '\n';
    auto [it, fresh] = monitor_listings.try_emplace({watch.source, query_key});
    if (fresh) it->second = watch.source->List(watch.condition.query);
    saw(watch.source_name, it->second.complete, it->second.error.message);
    ConditionOutcome& outcome = report.conditions.emplace_back();
    outcome.condition = watch.condition.common.name;
    outcome.source = watch.source_name;
    outcome.lease = watch.part.lease;
    outcome.token = *token;
    PollMonitors(watch, it->second, report.at, sink, outcome);
  }

  for (const PushWatch& watch : push_watches_) {
    const std::optional<uint64_t> token = TokenOf(held, watch.part.lease);
    if (!token) continue;
    ConditionOutcome& outcome = report.conditions.emplace_back();
    outcome.condition = watch.condition.common.name;
    outcome.source = std::string(kPushSource);
    outcome.lease = watch.part.lease;
    outcome.token = *token;
    std::optional<core::SourcePoll> sender;
    SweepPushes(watch, report.at, sink, outcome, sender);
    if (sender) source_polls[sender->source] = std::move(*sender);
  }
  ApplySourcePolls(source_polls, held, report.at, sink, report);
  return report;
}

void Poller::ApplySourcePolls(const std::map<std::string, core::SourcePoll, std::less<>>& polls,
                              const HeldLeases* held, core::WallTime now, DecisionSink& sink,
                              CycleReport& report) {
  for (const auto& [source, lease] : health_lease_) {
    if (!TokenOf(held, lease)) quiet_sources_.erase(source);
  }
  for (const auto& [source, poll] : polls) {
    const auto target = options_.source_health.find(source);
    const auto lease = health_lease_.find(source);
    if (target == options_.source_health.end() || target->second.failures_to_open == 0 ||
        lease == health_lease_.end()) {
      continue;
    }
    const std::optional<uint64_t> token = TokenOf(held, lease->second);
    if (!token) continue;  // the holder of the source's first lease writes its incident
    if (poll.ok && quiet_sources_.contains(source)) continue;
    ApplyOptions apply = SourceHealthApplyOptions(
        target->second, ApplyOptionsFor(core::ConditionCommon{}, options_, cycle_maintenance_));
    if (*token != 0) apply.fence = Fence{lease->second, *token};
    SourceHealthOutcome outcome =
        ApplySourceHealth(store_, encoder_, std::move(apply), poll, now, sink);
    if (outcome.applied && poll.ok) {
      quiet_sources_.insert(source);
    } else {
      quiet_sources_.erase(source);
    }
    report.source_health.push_back(std::move(outcome));
  }
}

void Poller::PollMetric(const MetricWatch& watch, const core::Result<core::MetricAnswer>& answer,
                        core::WallTime now, DecisionSink& sink, ConditionOutcome& outcome) {
  if (!answer) {
    outcome.source_ok = false;
    outcome.source_error = core::RedactErrorText(answer.error().message);
  }
  // A query that answers but keeps no series (a typo'd metric or label) observes nothing, which
  // looks just like health; the count makes it visible. A failed query proves nothing either way.
  uint32_t& empty = empty_polls_[watch.condition.common.name + watch.part.Suffix()];
  if (answer) empty = core::CountSelectedSeries(watch.condition, *answer) == 0 ? empty + 1 : 0;
  const uint32_t warn_after = watch.condition.common.no_series_warn_after;
  outcome.empty_polls = empty;
  outcome.query = watch.condition.query.expr;
  outcome.no_series_warning = warn_after > 0 && empty >= warn_after;
  ApplyAgainstOpen(
      watch.condition.common, watch.part,
      [&](const std::vector<core::Incident>& open) {
        return core::ObserveMetric(watch.condition, answer, open, now);
      },
      now, sink, outcome);
}

void Poller::PollMonitors(const MonitorWatch& watch, const core::MonitorListing& listing,
                          core::WallTime now, DecisionSink& sink, ConditionOutcome& outcome) {
  if (!listing.complete) {
    outcome.source_ok = false;
    outcome.source_error = core::RedactErrorText(listing.error.message);
  }
  ApplyAgainstOpen(
      watch.condition.common, watch.part,
      [&](const std::vector<core::Incident>& open) {
        return core::ObserveMonitors(watch.condition, listing, open, now);
      },
      now, sink, outcome);
}

void Poller::ApplyAgainstOpen(
    const core::ConditionCommon& common, const PollPart& part,
    const std::function<std::vector<core::Observation>(const std::vector<core::Incident>&)>&
        observe,
    core::WallTime now, DecisionSink& sink, ConditionOutcome& outcome) {
  auto open = store_.ListOpenIncidents(common.name);
  if (!open) {
    outcome.apply_error = open.error().message;
    return;
  }
  const auto keeps = [&part](std::string_view key) { return part.Keeps(key); };
  DropOtherShards(*open, keeps);
  std::vector<core::Observation> observations = observe(*open);
  std::erase_if(observations, [&](const core::Observation& o) { return !keeps(o.key); });
  Apply(common, part, std::move(observations), {}, {}, now, sink, outcome);
}

void Poller::SweepPushes(const PushWatch& watch, core::WallTime now, DecisionSink& sink,
                         ConditionOutcome& outcome, std::optional<core::SourcePoll>& sender) {
  auto open = store_.ListOpenIncidents(watch.condition.common.name);
  if (!open) {
    outcome.apply_error = open.error().message;
    return;
  }
  const PollPart& part = watch.part;
  // Over every shard's keys: the sender pushes them all.
  const std::string sender_name = core::PushSenderName(watch.condition.common.name);
  if (const auto lease = health_lease_.find(sender_name);
      lease != health_lease_.end() && lease->second == part.lease) {
    sender = core::PushSweepPoll(watch.condition, *open, now);
  }
  DropOtherShards(*open, [&part](std::string_view key) { return part.Keeps(key); });
  // Applied even when nothing is stale: the commit moves the shadow mark and proves the lease,
  // and an empty poll writes nothing else.
  Apply(watch.condition.common, part, core::ObserveStalePushes(watch.condition, *open, now), {}, {},
        now, sink, outcome);
}

bool Poller::Apply(const core::ConditionCommon& common, const PollPart& part,
                   std::vector<core::Observation> observations,
                   std::vector<std::pair<std::string, std::string>> marks,
                   std::vector<core::KeyGroup> key_groups, core::WallTime now, DecisionSink& sink,
                   ConditionOutcome& outcome, Pieces* pieces, ReadBefore* read_before) {
  const bool last = pieces == nullptr || pieces->last;
  outcome.observations += observations.size();
  ApplyOptions apply = ApplyOptionsFor(common, options_, cycle_maintenance_);
  // A polled key's failure that goes on unchanged is recorded at most this often: a steady
  // poll of a million failing groups then writes nothing (ApplyOptions::sighting_refresh). Pushed
  // keys go through push_input.cc, not here, so their expiry still sees every push.
  apply.sighting_refresh = kPolledSightingRefresh;
  // The mode of the condition's last committed poll: a poll that finds it was in shadow (or
  // cannot tell: a store from before the mark existed) announces the opens shadow kept quiet,
  // and moves the mark in its own transaction (its last, when in pieces: each piece announces
  // the opens of its own keys), so that happens exactly once per change.
  const std::string shadow_mark = ShadowMarkName(common.name) + part.Suffix();
  std::optional<std::string> mode_read;
  if (pieces == nullptr || !pieces->shadow_mode) {
    auto mode = store_.GetSourceMark(shadow_mark);
    if (!mode) {
      outcome.apply_error = mode.error().message;
      return false;
    }
    mode_read = mode->value_or("");
    if (pieces != nullptr) pieces->shadow_mode = mode_read;
  }
  const std::string& mode = pieces != nullptr ? *pieces->shadow_mode : *mode_read;
  const char* now_mode = common.shadow ? "on" : "off";
  if (mode != now_mode) {
    if (last) marks.emplace_back(shadow_mark, now_mode);
    apply.announce_shadow_opens = !common.shadow;
  }
  if (!last) marks.clear();
  apply.source_marks = std::move(marks);
  apply.key_groups = std::move(key_groups);
  const bool prune_due =
      last && options_.key_group_retention &&
      (!key_groups_pruned_at_ || now - *key_groups_pruned_at_ >= options_.key_group_prune_every);
  if (prune_due) apply.key_groups_cutoff = now - *options_.key_group_retention;
  if (!last) apply.decision_retention.reset();
  if (pieces != nullptr) {
    apply.record_poll = last;
    apply.earlier_counts = pieces->total.poll;
  }
  if (outcome.token != 0) apply.fence = Fence{part.lease, outcome.token};
  if (read_before != nullptr) apply.read_before = std::move(*read_before);
  PollApplier applier(store_, encoder_, std::move(apply));
  VectorObservationStream stream(observations);
  HeldDecisionsOf held(observations);
  const std::string poll_id =
      "poll-" + core::FormatRfc3339(now) + "-" + common.name + part.Suffix();
  auto applied = applier.Apply(stream, poll_id, now, held);
  if (!applied) {
    outcome.apply_error = applied.error().message;
    outcome.fenced = applied.error().code == core::ErrorCode::kConflict &&
                     applied.error().message.starts_with(core::kFencedPrefix);
    outcome.applied = false;
    return false;
  }
  if (pieces != nullptr) {
    AddPiece(pieces->total, *applied);
    outcome.summary = pieces->total;
  } else {
    outcome.summary = *applied;
  }
  outcome.applied = last;
  if (prune_due) key_groups_pruned_at_ = now;
  held.ForwardTo(sink);
  return true;
}

}  // namespace quell::app
