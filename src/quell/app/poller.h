#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "quell/app/budgeted_http_client.h"
#include "quell/app/poll_applier.h"
#include "quell/app/poll_leases.h"
#include "quell/app/source_health_apply.h"
#include "quell/core/conditions/error_group_condition.h"
#include "quell/core/conditions/listing_observer.h"
#include "quell/core/conditions/metric_condition.h"
#include "quell/core/conditions/monitor_condition.h"
#include "quell/core/conditions/push_condition.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/monitor_source.h"
#include "quell/core/ports/payload_encoder.h"
#include "quell/core/ports/sources.h"

namespace quell::app {

// How often a polled key's unchanged failure is recorded (ApplyOptions::sighting_refresh):
// last_seen_at, event_count and the key_groups pair lag the newest poll by less than this
// while nothing else about the failure changes (docs/store.md, "Quiet sightings").
inline constexpr core::Duration kPolledSightingRefresh = std::chrono::minutes{5};

// Builds a group's evidence text, from the listing alone or with its detail when the poll
// enriched it. Must redact; must be thread-safe (enrichment runs concurrently).
using GroupEvidenceBuilder =
    std::function<std::string(const core::ErrorGroup&, const core::GroupDetail*)>;
// How a poll takes a listed group's evidence from its incident when the group did not change,
// instead of building it again (most of a steady poll). Both agree with the builder.
struct GroupEvidenceReuse {
  // The part of a listed group the builder reads without its detail (GroupEvidenceSource),
  // kept until the chunk's incidents are read.
  std::function<core::ErrorGroup(const core::ErrorGroup&)> source;
  // A fingerprint of that part and of how the builder builds (GroupEvidenceFingerprint): equal
  // fingerprints, equal evidence.
  std::function<uint64_t(const core::ErrorGroup&)> fingerprint;
};

// The poll leases an instance holds, by name (app/poll_leases.h), with their fencing tokens.
using HeldLeases = std::map<std::string, uint64_t, std::less<>>;

struct PollerOptions {
  uint32_t max_enrich = 20;         // detail requests per cycle, over all conditions
  uint32_t enrich_concurrency = 4;  // detail requests in flight at once
  // Observations per transaction. An error-group listing is walked a page at a time and
  // committed in chunks of this many (its watched incidents read in slices as large),
  // so this, not the number of groups, bounds a poll's memory.
  size_t chunk_observations = 5000;
  std::optional<core::Duration> decision_retention;  // nullopt keeps the decision log forever
  // The shadow report's (key, group) pairs not seen failing for this long are deleted, at most
  // once per `key_group_prune_every` (a scan of the table); nullopt keeps them forever.
  std::optional<core::Duration> key_group_retention;
  core::Duration key_group_prune_every = std::chrono::hours(1);
  GroupEvidenceBuilder group_evidence;
  // With group_evidence: a listed group whose fingerprint is the one its incident's newest
  // evidence was built from takes that evidence. Unset: every listed group's is built.
  std::optional<GroupEvidenceReuse> group_evidence_reuse;
  uint32_t tenant_budget_per_hour = 0;                               // see ApplyOptions
  std::map<std::string, core::GroupPolicy, std::less<>> grouping;    // see ApplyOptions
  std::function<std::string(std::string_view payload)> severity_of;  // see ApplyOptions
  std::vector<core::MaintenanceWindow> maintenance;                  // see ApplyOptions
  const core::ZoneRules* zones = nullptr;
  // The operators' one-off windows, read once at the start of every cycle and applied beside
  // `maintenance` (so a window added or expired takes effect at the next cycle). A failed read
  // leaves the cycle with the configured windows only. Unset: none.
  std::function<core::Result<std::vector<core::MaintenanceWindow>>(core::WallTime now)>
      one_off_maintenance;
  // Sources that open an incident of their own when their polls keep failing, by the poller's
  // source name ("infrai error groups"), or core::PushSenderName(condition) for a push
  // condition's sweep. A source not named here has none.
  std::map<std::string, SourceHealthTarget, std::less<>> source_health;
};

// What one cycle did for one condition.
struct ConditionOutcome {
  std::string condition;
  std::string source;
  std::string lease;      // the poll lease it polled under (a shard's for a sharded condition)
  uint64_t token = 0;     // the lease's fencing token; 0 when polled unfenced
  bool fenced = false;    // the commit was refused: another instance took the lease over
  bool source_ok = true;  // false: the poll failed or was partial; see source_error
  // Why, with the remote's own words redacted (core::RedactErrorText): it is logged, kept for
  // /v1/sources and the page, and posted to the heartbeat.
  std::string source_error;
  bool applied = false;  // the observations committed
  std::string apply_error;
  uint64_t observations = 0;
  uint32_t enriched = 0;
  uint32_t enrich_failed = 0;
  ApplySummary summary;
  // Metric conditions only: consecutive polls whose answer left the condition no series (a
  // failed query neither counts nor resets), the query, and whether that count reached the
  // condition's no_series_warn_after.
  std::optional<uint32_t> empty_polls;
  std::string query;
  bool no_series_warning = false;
};

struct CycleReport {
  core::WallTime at;
  std::vector<ConditionOutcome> conditions;
  // The sources' own incidents this cycle wrote (a source whose last poll here succeeded and
  // that had nothing pending is not written again).
  std::vector<SourceHealthOutcome> source_health;
  // Every source answered in full and every condition committed.
  bool ok() const;
};

// One poll cycle over every watched condition: read each source once (a listing or query
// shared by several conditions is fetched once), turn answers into observations, enrich the
// keys about to open, renotify or resolve with their group's detail (bounded in count and
// concurrency), and apply each condition's observations durably with its own policy and
// channels, its source mark moving in the same transaction (an error-group listing's last:
// it streams, a chunk per transaction, and only a complete walk moves its watermark or
// resolves anything; see poller_errors.cc). A failed source still applies:
// its observations are unknown, which holds every open incident where it is. Then each source
// polled (and each push condition swept) feeds its own incident (core/conditions/source_health,
// PollerOptions::source_health) in a transaction of its own, under the lease of the source's
// first watch, so one instance writes it.
// Every watch polls under a lease: PollLeaseName(source name, interval), or for a condition
// with `shards: N`, N watches under ShardLeaseName, each keeping only the keys whose ShardOf is
// its shard (observations and the open incidents it reads alike, so "missing from the listing
// means healthy" stays within the shard) with its own watermark and shadow marks.
// Not thread-safe; sources must outlive the poller.
class Poller {
 public:
  Poller(core::IncidentStore& store, const core::PayloadEncoder& encoder, core::Clock& clock,
         PollerOptions options);

  void Watch(const core::ErrorGroupCondition& condition, core::ErrorGroupSource& source,
             const std::string& source_name);
  void Watch(const core::MetricCondition& condition, core::MetricSource& source,
             const std::string& source_name);
  // A monitor condition (Datadog's monitors): conditions asking one source the same query
  // share one listing per cycle.
  void Watch(const core::MonitorCondition& condition, core::MonitorSource& source,
             const std::string& source_name);
  // A push condition's stale sweep (core::ObserveStalePushes over its open incidents), under
  // PollLeaseName(kPushSource, interval): alerts arrive over HTTP, not in the cycle, so the
  // cycle only notices keys nobody refreshed. Its outcome names source kPushSource.
  void Watch(const core::PushCondition& condition);
  // Renews `http`'s retry budget at the start of every cycle, with `deadline` for the
  // source's requests in that cycle (BudgetedHttpClient::StartPoll): the client a source sends
  // through. `http` must outlive the poller.
  void RenewEachCycle(BudgetedHttpClient& http, std::optional<core::Duration> deadline);

  // Runs one cycle, with "now" read once from the clock. Decisions reach `sink` per condition
  // after that condition committed. With `held` (`quell run`), only the watches whose lease it
  // names poll, each commit fenced by its token; without (poll-once), every watch polls
  // unfenced. A source no polled watch needs is not asked.
  CycleReport RunOnce(DecisionSink& sink, const HeldLeases* held = nullptr);

  // The lease names of every watch, in watch order, each once.
  std::vector<std::string> LeaseNames() const;

 private:
  // Which part of a condition a watch polls, under which lease.
  struct ErrorWatch {
    core::ErrorGroupCondition condition;
    core::ErrorGroupSource* source;
    std::string source_name;
    PollPart part;
  };
  struct MetricWatch {
    core::MetricCondition condition;
    core::MetricSource* source;
    std::string source_name;
    PollPart part;
  };
  struct PushWatch {
    core::PushCondition condition;
    PollPart part;
  };
  struct MonitorWatch {
    core::MonitorCondition condition;
    core::MonitorSource* source;
    std::string source_name;
    PollPart part;
  };

  // A poll applied in several transactions: what its pieces share.
  struct Pieces {
    std::optional<std::string> shadow_mode;  // the shadow mark as the first piece read it
    bool last = false;                       // this piece ends the poll
    ApplySummary total;                      // the pieces committed so far
  };
  // One error watch's poll while its listing streams in (poller_errors.cc).
  struct ErrorStream {
    const ErrorWatch* watch = nullptr;
    ConditionOutcome* outcome = nullptr;
    std::string mark_name;  // the watermark's
    std::optional<core::ListingObserver> observer;
    Pieces pieces;
    uint32_t remembered = 0;  // healthy keys whose group is kept for a predicted resolve
    bool stopped = false;     // a read or a commit failed: this watch commits nothing more
  };

  // Walks `source`'s listing once for all of `streams` (its watches polled this cycle), each
  // observing, enriching and committing a chunk of observations at a time, then its watched
  // incidents not seen failing, a slice at a time; returns how the walk ended.
  core::GroupListing PollErrorSource(core::ErrorGroupSource& source,
                                     std::vector<ErrorStream>& streams, core::WallTime now,
                                     uint32_t& enrich_left, DecisionSink& sink);
  // Enriches a chunk's predicted transitions (within `enrich_left`) and applies it.
  void ApplyErrorChunk(ErrorStream& stream, core::ObservedChunk chunk, bool last,
                       core::WallTime now, uint32_t& enrich_left, DecisionSink& sink);
  void PollMetric(const MetricWatch& watch, const core::Result<core::MetricAnswer>& answer,
                  core::WallTime now, DecisionSink& sink, ConditionOutcome& outcome);
  void PollMonitors(const MonitorWatch& watch, const core::MonitorListing& listing,
                    core::WallTime now, DecisionSink& sink, ConditionOutcome& outcome);
  // A source whose observations depend on the condition's open incidents (a metric's absent
  // series, a monitor's vanished group): lists them in this shard, observes, applies this
  // shard's observations.
  void ApplyAgainstOpen(
      const core::ConditionCommon& common, const PollPart& part,
      const std::function<std::vector<core::Observation>(const std::vector<core::Incident>&)>&
          observe,
      core::WallTime now, DecisionSink& sink, ConditionOutcome& outcome);
  // `sender`: the sweep as a poll of the condition's sender, when this watch's lease is the one
  // its health is written under.
  void SweepPushes(const PushWatch& watch, core::WallTime now, DecisionSink& sink,
                   ConditionOutcome& outcome, std::optional<core::SourcePoll>& sender);
  // Applies each source's poll of this cycle to its own incident.
  void ApplySourcePolls(const std::map<std::string, core::SourcePoll, std::less<>>& polls,
                        const HeldLeases* held, core::WallTime now, DecisionSink& sink,
                        CycleReport& report);
  // Applies one transaction's observations. With `pieces`, one piece of a poll in several:
  // every piece but the last leaves the shadow mark, `marks`' moves, the prunes and the poll
  // row to the last. `read_before`: what was read of these keys before (ApplyOptions).
  // Returns whether it committed.
  bool Apply(const core::ConditionCommon& common, const PollPart& part,
             std::vector<core::Observation> observations,
             std::vector<std::pair<std::string, std::string>> marks,
             std::vector<core::KeyGroup> key_groups, core::WallTime now, DecisionSink& sink,
             ConditionOutcome& outcome, Pieces* pieces = nullptr,
             ReadBefore* read_before = nullptr);

  core::IncidentStore& store_;
  const core::PayloadEncoder& encoder_;
  core::Clock& clock_;
  PollerOptions options_;
  std::vector<core::MaintenanceWindow> cycle_maintenance_;    // this cycle's: configured + one-off
  std::optional<core::WallTime> key_groups_pruned_at_;        // the last committed prune
  std::map<std::string, uint32_t, std::less<>> empty_polls_;  // by metric condition
  std::vector<ErrorWatch> error_watches_;
  std::vector<MetricWatch> metric_watches_;
  std::vector<PushWatch> push_watches_;
  std::vector<MonitorWatch> monitor_watches_;
  // By source (or push sender) name: the lease its own incident is written under, its first
  // watch's.
  std::map<std::string, std::string, std::less<>> health_lease_;
  // Sources whose latest poll here succeeded and committed healthy, so their incident has nothing
  // open or pending: a further success need not be written. Forgotten whenever this instance
  // does not hold the source's lease, since another may write meanwhile.
  std::set<std::string, std::less<>> quiet_sources_;
  std::vector<std::pair<BudgetedHttpClient*, std::optional<core::Duration>>> budgets_;
};

// The source mark under which an error-group condition keeps its listing watermark.
std::string WatermarkMarkName(const std::string& condition);
// The source mark saying whether a condition's last committed poll was in shadow mode ("on"
// or "off"); leaving shadow mode announces the opens it kept quiet (ApplyOptions).
std::string ShadowMarkName(const std::string& condition);

}  // namespace quell::app
