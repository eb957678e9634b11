#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "quell/core/conditions/error_group.h"
#include "quell/core/conditions/error_group_condition.h"
#include "quell/core/conditions/key_group.h"
#include "quell/core/conditions/key_hash_set.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/observation.h"
#include "quell/core/text/time.h"

namespace quell::core {

// A piece of a streamed listing's observations, applied as one transaction.
struct ObservedChunk {
  std::vector<Observation> observations;  // sorted by key, one per key
  // Parallel to observations: the id of the listed group behind each (for a merged key, the
  // first failing one), "" when none; the poller enriches from it.
  std::vector<std::string> group_ids;
  std::vector<KeyGroup> key_groups;  // (key, group) pairs seen failing, sorted and unique
  // Only with ListingObserver::DeferEvidence, and parallel to observations: the listed group
  // behind each unhealthy observation (the one group_ids names), whose evidence is the caller's
  // to build. Empty otherwise.
  std::vector<ErrorGroup> groups;
};

// ObserveGroups for a listing that arrives a page at a time, so a poll holds one chunk of
// observations and a KeyHashSet of the keys it saw failing, never the whole listing.
//
// Pages: a failing key is observed (unhealthy) in the chunk that first shows it; groups sharing
// a key within that chunk merge as in ObserveGroups, and a failing group of a key an earlier
// chunk already observed adds nothing (its count is not added to that chunk's; its pair still
// goes to key_groups). A healthy group observes nothing yet: another page may show its key
// failing, and unhealthy wins.
// After the walk: every watched incident (open, held or pending) whose key was not seen failing
// is observed healthy when the listing completed, unknown when it did not, so an incomplete
// listing resolves nothing. A flap-damped condition also observes every key listed only healthy
// (it counts healthy polls of resolved keys); it keeps those keys' names until the walk ends.
class ListingObserver {
 public:
  // `keeps`: whether a key is this poll's (a shard's part of the condition).
  ListingObserver(const ErrorGroupCondition& condition, std::optional<WallTime> previous_watermark,
                  WallTime at, std::function<bool(std::string_view)> keeps);

  // Asked once per page about its healthy listed keys (of this poll, unique, not remembered
  // before), in key order: it appends to `kept` the positions of those whose group's id is to be
  // kept for the key's observation after the walk (so a resolve the poller predicts can be
  // enriched). Once per page, not per key, so the poller can read their incidents together.
  using Remember =
      std::function<void(std::span<const std::string> keys, std::vector<size_t>& kept)>;

  // For a caller that takes an unchanged group's evidence from the key's incident instead of
  // building it again (a steady poll's evidence is mostly the stored one): `fingerprint` is
  // stamped on every unhealthy observation (Observation::evidence_fingerprint), and a chunk that
  // defers its evidence (DeferEvidence) keeps `keep` of each one's group instead of its evidence
  // (ObservedChunk::groups: the part the evidence is built from), for the caller to build only
  // what changed once it has read the incidents.
  void ReuseEvidence(std::function<uint64_t(const ErrorGroup&)> fingerprint,
                     std::function<ErrorGroup(const ErrorGroup&)> keep) {
    fingerprint_ = std::move(fingerprint);
    keep_group_ = std::move(keep);
  }
  // Whether the chunk being gathered defers its evidence (with ReuseEvidence; at first it
  // does); once it has observations, from the next chunk on. Deferring costs a copy of each
  // group, so a caller turns it off where few incidents hold the same evidence (a first poll).
  void DeferEvidence(bool defer) {
    defer_next_ = defer;
    if (chunk_.observations.empty()) defer_ = defer;
  }

  // Observes one page; `remember` (may be empty) as above, the poller bounds how many.
  void ObservePage(std::span<const ErrorGroup> page, const GroupEvidence& evidence,
                   const Remember& remember);
  // Observations waiting in the current chunk.
  size_t pending() const { return chunk_.observations.size(); }
  // Hands over the current chunk, sorted by key; its keys count as seen from now on.
  ObservedChunk TakeChunk();

  // After the last page (and TakeChunk): observes the watched incidents of the condition
  // (IncidentStore::ListWatchedKeysAfter), one slice of their keys at a time in key order, into
  // `out`; `last` with the final slice.
  void ObserveUnseen(std::span<const std::string> watched_keys, bool complete, bool last,
                     ObservedChunk& out);
  // The largest last_seen of the matching groups listed so far, or the previous watermark: the
  // mark to store once the listing completed.
  std::optional<WallTime> watermark() const { return watermark_; }
  uint64_t groups_matched() const { return groups_matched_; }

 private:
  void ObserveHealthyKeysBefore(const std::string* key, ObservedChunk& out);
  void AddUnseen(const std::string& key, Health health, ObservedChunk& out);

  const ErrorGroupCondition& condition_;
  std::optional<WallTime> previous_watermark_;
  std::optional<WallTime> watermark_;
  WallTime at_;
  std::function<bool(std::string_view)> keeps_;
  bool keep_all_healthy_;
  std::function<uint64_t(const ErrorGroup&)> fingerprint_;
  std::function<ErrorGroup(const ErrorGroup&)> keep_group_;
  bool defer_ = true;  // the current chunk's (with keep_group_)
  bool defer_next_ = true;
  uint64_t groups_matched_ = 0;

  ObservedChunk chunk_;
  std::unordered_map<std::string, size_t> chunk_index_;  // key -> its observation in chunk_
  std::vector<uint64_t> chunk_hashes_;
  KeyHashSet failing_;  // keys observed failing, past chunks
  std::map<std::string, std::string, std::less<>> remembered_;  // healthy key -> group id
  std::vector<std::string> healthy_keys_;  // flap damping only; sorted once the walk ends
  // One page's healthy keys for `remember` (sorted, unique), and their group ids.
  std::vector<std::pair<std::string, std::string>> page_healthy_;
  std::vector<std::string> ask_;
  std::vector<size_t> kept_;
  KeyTemplate::Rendered rendered_;  // the key being observed's values
  bool healthy_sorted_ = false;
  size_t healthy_next_ = 0;
};

}  // namespace quell::core
