#pragma once

// The ceilings of the instances benchmark: what the same PostgreSQL server does with the same
// number of connections and the same transactions when no quell logic runs, measured in the
// same run, so quell's figures can be given as ratios (this machine's speed varies by 2x).
#include <cstddef>
#include <string>
#include <vector>

namespace quell::bench {

// Which keys each instance writes: keys_of[i] is instance i's keys, split into its shards (one
// transaction each, as quell commits one poll per shard lease).
struct Workload {
  std::vector<std::vector<std::vector<std::string>>> keys_of;  // instance -> shard -> keys
};

struct CeilingResult {
  size_t rows = 0;
  double seconds = 0;
  std::vector<double> transaction_s;  // each transaction, begin to commit
};

// Plain multi-row INSERTs (1,000 rows per statement): for every key, three rows the size of an
// opening poll's incident, decision and outbox rows, one transaction per shard, each instance on
// its own connection and thread. `url` selects the schema (search_path); the table is created
// there and dropped afterwards.
CeilingResult InsertCeiling(const std::string& url, const Workload& work);

// Plain claim and record of one row per key, the way the outbox is claimed but without its
// rules: UPDATE ... WHERE key IN (SELECT ... ORDER BY due LIMIT batch FOR UPDATE SKIP LOCKED)
// RETURNING, then one UPDATE ... WHERE key = ANY(...) per batch, every instance claiming on its
// own connection until nothing is left. Seeded (untimed) and analyzed first.
CeilingResult ClaimCeiling(const std::string& url, const Workload& work, size_t batch);

}  // namespace quell::bench
