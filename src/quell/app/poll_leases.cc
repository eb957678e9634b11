#include "quell/app/poll_leases.h"

#include <algorithm>

namespace quell::app {

std::string PollLeaseName(std::string_view source, core::Duration interval) {
  std::string name = "poll/";
  name += source;
  std::replace(name.begin(), name.end(), ' ', '-');
  return name + "/" + core::FormatDuration(interval);
}

std::string ShardLeaseName(std::string_view source, core::Duration interval,
                           std::string_view condition, uint32_t shard, uint32_t shards) {
  return PollLeaseName(source, interval) + "/" + std::string(condition) +
         PollPart{.lease = "", .shard = shard, .shards = shards}.Suffix();
}

uint32_t ShardOf(std::string_view key, uint32_t shards) {
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a offset basis
  for (const char c : key) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;  // FNV prime
  }
  return static_cast<uint32_t>(hash % shards);
}

bool PollPart::Keeps(std::string_view key) const {
  return shards <= 1 || ShardOf(key, shards) == shard;
}

std::string PollPart::Suffix() const {
  if (shards <= 1) return "";
  return "/shard-" + std::to_string(shard + 1) + "-of-" + std::to_string(shards);
}

std::vector<PollPart> PollPartsOf(const core::ConditionCommon& common, std::string_view source) {
  if (common.shards <= 1) return {PollPart{PollLeaseName(source, common.interval), 0, 1}};
  std::vector<PollPart> parts;
  for (uint32_t shard = 0; shard < common.shards; ++shard) {
    parts.push_back(
        PollPart{ShardLeaseName(source, common.interval, common.name, shard, common.shards), shard,
                 common.shards});
  }
  return parts;
}

}  // namespace quell::app
