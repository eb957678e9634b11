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

std::string FormatMark(core::WallTime at) { return core::FormatRfc3339(at); }

std::optional<core::WallTime> ParseMark(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  auto parsed = core::ParseRfc3339(*text);
  if (!parsed) return std::nullopt;  // an unreadable mark is no baseline, not a failure
  return *parsed;
}

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

// Keeps the observations (with their groups) and key-group pairs of one shard's keys.
void KeepShard(core::GroupObservations& observed,
               const std::function<bool(std::string_view)>& keeps) {
  size_t kept = 0;
  for (size_t i = 0; i < observed.observations.size(); ++i) {
    if (!keeps(observed.observations[i].key)) continue;
    if (kept != i) {
      observed.observations[kept] = std::move(observed.observations[i]);
      observed.groups[kept] = observed.groups[i];
    }
    ++kept;
  }
  observed.observations.resize(kept);
  observed.groups.resize(kept);
  std::erase_if(observed.key_groups, [&](const core::KeyGroup& pair) { return !keeps(pair.key); });
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

  std::map<core::ErrorGroupSource*, core::GroupListing> listings;
  for (const ErrorWatch& watch : error_watches_) {
    const std::optional<uint64_t> token = TokenOf(held, watch.part.lease);
    if (!token) continue;  // another instance polls it
    auto [it, fresh] = listings.try_emplace(watch.source);
    if (fresh) it->second = watch.source->List();
    saw(watch.source_name, it->second.complete, it->second.error.message);
    ConditionOutcome& outcome = report.conditions.emplace_back();
    outcome.condition = watch.condition.common.name;
    outcome.source = watch.source_name;
    outcome.lease = watch.part.lease;
    outcome.token = *token;
    PollErrors(watch, it->second, report.at, enrich_left, sink, outcome);
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

void Poller::PollErrors(const ErrorWatch& watch, const core::GroupListing& listing,
                        core::WallTime now, uint32_t& enrich_left, DecisionSink& sink,
                        ConditionOutcome& outcome) {
  const core::ErrorGroupCondition& condition = watch.condition;
  if (!listing.complete) {
    outcome.source_ok = false;
    outcome.source_error = core::RedactErrorText(listing.error.message);
  }
  auto open = store_.ListOpenIncidents(condition.common.name);
  if (!open) {
    outcome.apply_error = open.error().message;
    return;
  }
  const PollPart& part = watch.part;
  const auto keeps = [&part](std::string_view key) { return part.Keeps(key); };
  DropOtherShards(*open, keeps);
  const std::string mark_name = WatermarkMarkName(condition.common.name) + part.Suffix();
  auto mark = store_.GetSourceMark(mark_name);
  if (!mark) {
    outcome.apply_error = mark.error().message;
    return;
  }
  const auto summary_evidence = [this](const core::ErrorGroup& group) {
    return options_.group_evidence ? options_.group_evidence(group, nullptr) : std::string();
  };
  core::GroupObservations observed =
      core::ObserveGroups(condition, listing, *open, ParseMark(*mark), now, summary_evidence);
  if (part.shards > 1) KeepShard(observed, keeps);

  // Predict which keys transition (open, renotify, resolve) against the incidents as read;
  // only those are worth a detail request. A race with another worker can make the guess
  // wrong, which costs one missing or one unneeded enrichment, never a wrong decision.
  std::unordered_map<std::string_view, const core::Incident*> open_by_key;
  for (const core::Incident& incident : *open) open_by_key.emplace(incident.key, &incident);
  std::vector<size_t> to_enrich;
  for (size_t i = 0; i < observed.observations.size() && to_enrich.size() < enrich_left; ++i) {
    if (observed.groups[i] == core::GroupObservations::kNoGroup) continue;
    const core::Observation& observation = observed.observations[i];
    const auto it = open_by_key.find(observation.key);
    core::Incident current = it == open_by_key.end() ? core::Incident{} : *it->second;
    const core::Evaluation predicted =
        core::EvaluateCopy(std::move(current), observation, condition.common.policy);
    if (predicted.decision.transition) to_enrich.push_back(i);
  }
  enrich_left -= static_cast<uint32_t>(to_enrich.size());

  std::vector<core::Result<core::GroupDetail>> details(
      to_enrich.size(), core::MakeError(core::ErrorCode::kInternal, "not fetched"));
  ForEachBounded(to_enrich.size(), options_.enrich_concurrency, [&](size_t n) {
    const core::ErrorGroup& group = listing.groups[observed.groups[to_enrich[n]]];
    details[n] = watch.source->Detail(group.id);
  });
  for (size_t n = 0; n < to_enrich.size(); ++n) {
    if (!details[n]) {
      ++outcome.enrich_failed;  // the summary evidence stays; the transition is not held up
      continue;
    }
    ++outcome.enriched;
    if (options_.group_evidence) {
      core::Observation& observation = observed.observations[to_enrich[n]];
      observation.evidence = options_.group_evidence(details[n]->group, &*details[n]);
    }
  }

  std::vector<std::pair<std::string, std::string>> marks;
  if (listing.complete && observed.watermark) {
    marks.emplace_back(mark_name, FormatMark(*observed.watermark));
  }
  Apply(condition.common, part, std::move(observed.observations), std::move(marks),
        std::move(observed.key_groups), now, sink, outcome);
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

void Poller::Apply(const core::ConditionCommon& common, const PollPart& part,
                   std::vector<core::Observation> observations,
                   std::vector<std::pair<std::string, std::string>> marks,
                   std::vector<core::KeyGroup> key_groups, core::WallTime now, DecisionSink& sink,
                   ConditionOutcome& outcome) {
  outcome.observations = observations.size();
  ApplyOptions apply = ApplyOptionsFor(common, options_, cycle_maintenance_);
  // The mode of the condition's last committed poll: a poll that finds it was in shadow (or
  // cannot tell: a store from before the mark existed) announces the opens shadow kept quiet,
  // and moves the mark in its own transaction, so that happens exactly once per change.
  const std::string shadow_mark = ShadowMarkName(common.name) + part.Suffix();
  auto mode = store_.GetSourceMark(shadow_mark);
  if (!mode) {
    outcome.apply_error = mode.error().message;
    return;
  }
  const char* now_mode = common.shadow ? "on" : "off";
  if (*mode != now_mode) {
    marks.emplace_back(shadow_mark, now_mode);
    apply.announce_shadow_opens = !common.shadow;
  }
  apply.source_marks = std::move(marks);
  apply.key_groups = std::move(key_groups);
  const bool prune_due =
      options_.key_group_retention &&
      (!key_groups_pruned_at_ || now - *key_groups_pruned_at_ >= options_.key_group_prune_every);
  if (prune_due) apply.key_groups_cutoff = now - *options_.key_group_retention;
  if (outcome.token != 0) apply.fence = Fence{part.lease, outcome.token};
  PollApplier applier(store_, encoder_, std::move(apply));
  VectorObservationStream stream(observations);
  HeldDecisions held;
  const std::string poll_id =
      "poll-" + core::FormatRfc3339(now) + "-" + common.name + part.Suffix();
  auto applied = applier.Apply(stream, poll_id, now, held);
  if (!applied) {
    outcome.apply_error = applied.error().message;
    outcome.fenced = applied.error().code == core::ErrorCode::kConflict &&
                     applied.error().message.starts_with(core::kFencedPrefix);
    return;
  }
  outcome.applied = true;
  outcome.summary = *applied;
  if (prune_due) key_groups_pruned_at_ = now;
  held.ForwardTo(sink);
}

}  // namespace quell::app
