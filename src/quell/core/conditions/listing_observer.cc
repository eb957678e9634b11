#include "quell/core/conditions/listing_observer.h"

#include <algorithm>
#include <utility>

namespace quell::core {

ListingObserver::ListingObserver(const ErrorGroupCondition& condition,
                                 std::optional<WallTime> previous_watermark, WallTime at,
                                 std::function<bool(std::string_view)> keeps)
    : condition_(condition),
      previous_watermark_(previous_watermark),
      watermark_(previous_watermark),
      at_(at),
      keeps_(std::move(keeps)),
      keep_all_healthy_(condition.common.policy.flap.has_value()) {}

void ListingObserver::ObservePage(std::span<const ErrorGroup> page, const GroupEvidence& evidence,
                                  const Remember& remember) {
  std::string key;
  page_healthy_.clear();
  for (const ErrorGroup& group : page) {
    if (!Matches(condition_.filter, group)) continue;
    ++groups_matched_;
    if (group.last_seen && (!watermark_ || *group.last_seen > *watermark_)) {
      watermark_ = group.last_seen;
    }
    const bool unhealthy = IsUnhealthyGroup(condition_, group, previous_watermark_);
    const auto lookup = [&group](std::string_view field) { return GroupField(group, field); };
    key.clear();
    condition_.key.AppendTo(key, lookup, rendered_);
    if (keeps_ && !keeps_(key)) continue;
    if (!unhealthy) {
      if (keep_all_healthy_) healthy_keys_.push_back(key);
      if (remember && !remembered_.contains(key)) page_healthy_.emplace_back(key, group.id);
      continue;
    }
    chunk_.key_groups.push_back(KeyGroup{key, group.id});
    if (const auto it = chunk_index_.find(key); it != chunk_index_.end()) {
      // Groups sharing a key: their events all count upstream.
      Observation& merged = chunk_.observations[it->second];
      merged.upstream_count = merged.upstream_count.value_or(0) + group.count;
      continue;
    }
    const uint64_t hash = KeyHashSet::Hash(key);
    if (failing_.Contains(hash)) continue;  // an earlier chunk observed it failing
    const bool defer = keep_group_ && defer_;
    chunk_index_.emplace(key, chunk_.observations.size());
    chunk_hashes_.push_back(hash);
    chunk_.observations.push_back(Observation{
        .key = key,
        .at = at_,
        .health = Health::kUnhealthy,
        .condition = condition_.common.name,
        .evidence = evidence && !defer ? evidence(group) : std::string(),
        .labels = condition_.key.LabelsOf(key, rendered_, lookup),
        .upstream_count = group.count,
        .first_seen_at = std::nullopt,
        .expire = false,
        .evidence_fingerprint =
            fingerprint_ ? std::optional<uint64_t>(fingerprint_(group)) : std::nullopt,
    });
    chunk_.group_ids.push_back(group.id);
    if (defer) chunk_.groups.push_back(keep_group_(group));
  }
  if (page_healthy_.empty()) return;
  // The first group listed of a key is the one kept, as when asked key by key.
  std::stable_sort(page_healthy_.begin(), page_healthy_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  page_healthy_.erase(std::unique(page_healthy_.begin(), page_healthy_.end(),
                                  [](const auto& a, const auto& b) { return a.first == b.first; }),
                      page_healthy_.end());
  ask_.clear();
  for (const auto& [healthy, id] : page_healthy_) ask_.push_back(healthy);
  kept_.clear();
  remember(ask_, kept_);
  for (const size_t i : kept_) {
    if (i < page_healthy_.size())
      remembered_.emplace(page_healthy_[i].first, page_healthy_[i].second);
  }
}

ObservedChunk ListingObserver::TakeChunk() {
  ObservedChunk out;
  std::vector<size_t> order(chunk_.observations.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // A listing often comes in key order already (a check is cheaper than a sort); keys are
  // unique within a chunk, so either way gives the one order.
  const auto by_key = [this](size_t a, size_t b) {
    return chunk_.observations[a].key < chunk_.observations[b].key;
  };
  if (!std::is_sorted(order.begin(), order.end(), by_key)) {
    std::sort(order.begin(), order.end(), by_key);
  }
  out.observations.reserve(order.size());
  out.group_ids.reserve(order.size());
  if (!chunk_.groups.empty()) out.groups.reserve(order.size());
  for (const size_t i : order) {
    out.observations.push_back(std::move(chunk_.observations[i]));
    out.group_ids.push_back(std::move(chunk_.group_ids[i]));
    if (!chunk_.groups.empty()) out.groups.push_back(std::move(chunk_.groups[i]));
  }
  out.key_groups = std::move(chunk_.key_groups);
  const auto pair_order = [](const KeyGroup& a, const KeyGroup& b) {
    return a.key != b.key ? a.key < b.key : a.group_id < b.group_id;
  };
  if (!std::is_sorted(out.key_groups.begin(), out.key_groups.end(), pair_order)) {
    std::sort(out.key_groups.begin(), out.key_groups.end(), pair_order);
  }
  out.key_groups.erase(std::unique(out.key_groups.begin(), out.key_groups.end()),
                       out.key_groups.end());
  failing_.Insert(chunk_hashes_);
  chunk_ = ObservedChunk{};
  defer_ = defer_next_;
  chunk_index_.clear();
  chunk_hashes_.clear();
  return out;
}

void ListingObserver::AddUnseen(const std::string& key, Health health, ObservedChunk& out) {
  out.observations.push_back(Observation{
      .key = key,
      .at = at_,
      .health = health,
      .condition = condition_.common.name,
      .evidence = {},
      .labels = {},
      .upstream_count = std::nullopt,
      .first_seen_at = std::nullopt,
      .expire = false,
      .evidence_fingerprint = std::nullopt,
  });
  const auto remembered = remembered_.find(key);
  out.group_ids.push_back(remembered == remembered_.end() ? std::string() : remembered->second);
}

void ListingObserver::ObserveHealthyKeysBefore(const std::string* key, ObservedChunk& out) {
  for (; healthy_next_ < healthy_keys_.size(); ++healthy_next_) {
    const std::string& healthy = healthy_keys_[healthy_next_];
    if (key != nullptr && healthy >= *key) return;
    if (!failing_.Contains(healthy)) AddUnseen(healthy, Health::kHealthy, out);
  }
}

void ListingObserver::ObserveUnseen(std::span<const std::string> watched_keys, bool complete,
                                    bool last, ObservedChunk& out) {
  // A partial listing proves nothing healthy: its healthy keys observe nothing.
  const bool healthy_keys = keep_all_healthy_ && complete;
  if (healthy_keys && !healthy_sorted_) {
    std::sort(healthy_keys_.begin(), healthy_keys_.end());
    healthy_keys_.erase(std::unique(healthy_keys_.begin(), healthy_keys_.end()),
                        healthy_keys_.end());
    healthy_sorted_ = true;
  }
  for (const std::string& key : watched_keys) {
    if (keeps_ && !keeps_(key)) continue;
    if (healthy_keys) {
      ObserveHealthyKeysBefore(&key, out);
      if (healthy_next_ < healthy_keys_.size() && healthy_keys_[healthy_next_] == key) {
        ++healthy_next_;
      }
    }
    if (failing_.Contains(key)) continue;
    AddUnseen(key, complete ? Health::kHealthy : Health::kUnknown, out);
  }
  if (healthy_keys && last) ObserveHealthyKeysBefore(nullptr, out);
}

}  // namespace quell::core
