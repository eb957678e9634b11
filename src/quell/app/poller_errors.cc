// The error-group part of Poller: a listing streamed page by page, observed, enriched and
// committed chunk by chunk (core::ListingObserver), so a poll's memory is bounded by the
// chunk, not by the number of groups.
#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "quell/app/bounded_parallel.h"
#include "quell/app/poller.h"
#include "quell/core/engine/evaluate.h"
#include "quell/core/engine/quiet_sighting.h"
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

// Whether an incident is one a poll of its condition watches (ListOpenIncidents' rows).
bool Watched(const core::Incident& incident) {
  return incident.is_open() || incident.held ||
         (incident.unhealthy_streak > 0 && incident.status != core::IncidentStatus::kOpen);
}

}  // namespace

core::GroupListing Poller::PollErrorSource(core::ErrorGroupSource& source,
                                           std::vector<ErrorStream>& streams, core::WallTime now,
                                           uint32_t& enrich_left, DecisionSink& sink) {
  for (ErrorStream& stream : streams) {
    const ErrorWatch& watch = *stream.watch;
    stream.mark_name = WatermarkMarkName(watch.condition.common.name) + watch.part.Suffix();
    auto mark = store_.GetSourceMark(stream.mark_name);
    if (!mark) {
      stream.outcome->apply_error = mark.error().message;
      stream.stopped = true;
      continue;
    }
    const PollPart* part = &watch.part;
    stream.observer.emplace(watch.condition, ParseMark(*mark), now,
                            [part](std::string_view key) { return part->Keeps(key); });
    // Built in ApplyErrorChunk, once the chunk's incidents are read.
    if (options_.group_evidence && options_.group_evidence_reuse) {
      stream.observer->ReuseEvidence(options_.group_evidence_reuse->fingerprint,
                                     options_.group_evidence_reuse->source);
      // A condition never polled to the end before (no watermark) has little to reuse.
      stream.observer->DeferEvidence(mark->has_value());
    }
  }
  const auto summary_evidence = [this](const core::ErrorGroup& group) {
    return options_.group_evidence ? options_.group_evidence(group, nullptr) : std::string();
  };
  const size_t chunk = std::max<size_t>(options_.chunk_observations, 1);
  std::vector<core::Incident> found;  // a page's healthy keys' incidents, reused

  core::GroupListing walked = source.WalkPages([&](std::span<const core::ErrorGroup> page) {
    // A source's poll deadline bounds its own requests: the time spent here observing and
    // committing a page is the poller's work, so it moves the deadline on.
    const core::MonoTime started = clock_.Monotonic();
    for (ErrorStream& stream : streams) {
      if (stream.stopped) continue;
      const std::string& condition = stream.watch->condition.common.name;
      const core::Policy& policy = stream.watch->condition.common.policy;
      // A healthy listed key whose watched incident would resolve: its group is kept so
      // the resolve can be enriched after the walk (within the cycle's detail budget). A
      // page's keys are read together.
      const auto remember = [&](std::span<const std::string> keys, std::vector<size_t>& kept) {
        if (stream.remembered >= enrich_left) return;
        found.clear();
        if (auto read = store_.FindIncidents(keys, found); !read) return;
        size_t at = 0;
        for (core::Incident& incident : found) {
          if (stream.remembered >= enrich_left) return;
          while (at < keys.size() && keys[at] < incident.key) ++at;
          if (at == keys.size()) return;
          if (incident.condition != condition || !Watched(incident)) continue;
          core::Observation healthy;
          healthy.key = incident.key;
          healthy.at = now;
          healthy.health = core::Health::kHealthy;
          healthy.condition = condition;
          if (!core::EvaluateCopy(std::move(incident), healthy, policy).decision.transition) {
            continue;
          }
          kept.push_back(at);
          ++stream.remembered;
        }
      };
      stream.observer->ObservePage(page, summary_evidence, remember);
      if (stream.observer->pending() >= chunk) {
        ApplyErrorChunk(stream, stream.observer->TakeChunk(), false, now, enrich_left, sink);
      }
    }
    const core::Duration spent = clock_.Monotonic() - started;
    for (const auto& budget : budgets_) budget.first->Postpone(spent);
  });

  for (ErrorStream& stream : streams) {
    ConditionOutcome& outcome = *stream.outcome;
    if (!walked.complete) {
      outcome.source_ok = false;
      outcome.source_error = core::RedactErrorText(walked.error.message);
    }
    if (stream.stopped) continue;
    if (stream.observer->pending() > 0) {
      ApplyErrorChunk(stream, stream.observer->TakeChunk(), false, now, enrich_left, sink);
    }
    // The watched incidents not seen failing, a slice of keys at a time in key order; the
    // last slice commits the marks.
    std::string after;
    while (!stream.stopped) {
      auto slice = store_.ListWatchedKeysAfter(stream.watch->condition.common.name, after, chunk);
      if (!slice) {
        outcome.apply_error = slice.error().message;
        outcome.applied = false;
        break;
      }
      const bool last = slice->size() < chunk;
      core::ObservedChunk unseen;
      stream.observer->ObserveUnseen(*slice, walked.complete, last, unseen);
      if (!slice->empty()) after = slice->back();
      if (!last && unseen.observations.empty()) continue;
      ApplyErrorChunk(stream, std::move(unseen), last, now, enrich_left, sink);
      if (last) break;
    }
  }
  return walked;
}

void Poller::ApplyErrorChunk(ErrorStream& stream, core::ObservedChunk chunk, bool last,
                             core::WallTime now, uint32_t& enrich_left, DecisionSink& sink) {
  const ErrorWatch& watch = *stream.watch;
  const core::ErrorGroupCondition& condition = watch.condition;
  ConditionOutcome& outcome = *stream.outcome;

  // Predict which keys transition (open, renotify, resolve) against the incidents as they
  // stand; only those are worth a detail request. A race with another worker can make the
  // guess wrong, which costs one missing or one unneeded enrichment, never a wrong decision.
  // What is read here is kept for the apply, which then only checks each row's version.
  std::vector<size_t> to_enrich;
  ReadBefore read;
  std::vector<core::Incident> found;
  // Whether an incident's newest evidence was built from the observation's listed group.
  const auto same_evidence = [](const core::Incident* current, const core::Observation& o) {
    return current != nullptr && current->key == o.key && o.evidence_fingerprint &&
           current->evidence_fingerprint == o.evidence_fingerprint &&
           !current->recent_evidence.empty();
  };
  // A deferred chunk's evidence (ListingObserver::DeferEvidence), in order: taken from the
  // key's incident when built from the same group, else built. Every observation before
  // `evidenced` has its own.
  size_t evidenced = 0;
  const auto evidence_up_to = [&](size_t end, const core::Incident* current) {
    for (; evidenced < std::min(end, chunk.groups.size()); ++evidenced) {
      core::Observation& observation = chunk.observations[evidenced];
      if (same_evidence(current, observation)) {
        observation.evidence = current->recent_evidence.back();
      } else {
        observation.evidence = options_.group_evidence(chunk.groups[evidenced], nullptr);
      }
    }
  };
  // Of the listed groups read against their incidents, how many held the same evidence: when
  // few did (a first poll), the next chunk builds its evidence as it observes, which spares
  // the copy of every group.
  size_t compared = 0;
  size_t same = 0;
  // The chunk's keys are read in slices, until the detail budget is spent, or to the end for a
  // chunk whose evidence waits for them (observations are sorted by key, one per key).
  const bool deferred = !chunk.groups.empty();
  constexpr size_t kSlice = 256;
  for (size_t from = 0;
       from < chunk.observations.size() && (deferred || to_enrich.size() < enrich_left);
       from += kSlice) {
    const size_t to = std::min(chunk.observations.size(), from + kSlice);
    const size_t first_key = read.keys.size();
    for (size_t i = from; i < to; ++i) {
      if (!chunk.group_ids[i].empty()) read.keys.push_back(chunk.observations[i].key);
    }
    found.clear();
    const std::span<const std::string> slice(read.keys.begin() + static_cast<ptrdiff_t>(first_key),
                                             read.keys.end());
    if (auto status = store_.FindIncidents(slice, found); !status) {
      outcome.apply_error = status.error().message;
      stream.stopped = true;
      return;
    }
    auto next = found.begin();
    for (size_t i = from; i < to && (deferred || to_enrich.size() < enrich_left); ++i) {
      if (chunk.group_ids[i].empty()) continue;
      const core::Observation& observation = chunk.observations[i];
      const bool has_row = next != found.end() && next->key == observation.key;
      const core::Incident none;
      const core::Incident& current = has_row ? *next++ : none;
      evidence_up_to(i + 1, has_row ? &current : nullptr);
      if (observation.evidence_fingerprint) {
        ++compared;
        if (same_evidence(has_row ? &current : nullptr, observation)) ++same;
      }
      if (to_enrich.size() >= enrich_left) continue;  // read for its evidence only
      // A quiet sighting (most of a steady poll) never transitions: no copy to evaluate.
      if (core::IsQuietSighting(current, observation, condition.common.policy,
                                kPolledSightingRefresh)) {
        continue;
      }
      if (core::EvaluateCopy(current, observation, condition.common.policy).decision.transition) {
        to_enrich.push_back(i);
      }
    }
    for (core::Incident& incident : found) read.incidents.push_back(std::move(incident));
  }
  // Past the detail budget the keys were not read: their evidence is built.
  evidence_up_to(chunk.groups.size(), nullptr);
  chunk.groups.clear();
  if (compared > 0) stream.observer->DeferEvidence(2 * same >= compared && same > 0);
  enrich_left -= static_cast<uint32_t>(to_enrich.size());

  std::vector<core::Result<core::GroupDetail>> details(
      to_enrich.size(), core::MakeError(core::ErrorCode::kInternal, "not fetched"));
  ForEachBounded(to_enrich.size(), options_.enrich_concurrency, [&](size_t n) {
    details[n] = watch.source->Detail(chunk.group_ids[to_enrich[n]]);
  });
  for (size_t n = 0; n < to_enrich.size(); ++n) {
    if (!details[n]) {
      ++outcome.enrich_failed;  // the summary evidence stays; the transition is not held up
      continue;
    }
    ++outcome.enriched;
    if (options_.group_evidence) {
      core::Observation& enriched = chunk.observations[to_enrich[n]];
      enriched.evidence = options_.group_evidence(details[n]->group, &*details[n]);
      enriched.evidence_fingerprint.reset();  // built from the detail, not the listed group
    }
  }

  std::vector<std::pair<std::string, std::string>> marks;
  const std::optional<core::WallTime> watermark = stream.observer->watermark();
  if (last && outcome.source_ok && watermark) {
    marks.emplace_back(stream.mark_name, FormatMark(*watermark));
  }
  stream.pieces.last = last;
  if (!Apply(condition.common, watch.part, std::move(chunk.observations), std::move(marks),
             std::move(chunk.key_groups), now, sink, outcome, &stream.pieces, &read)) {
    stream.stopped = true;
  }
}

}  // namespace quell::app
