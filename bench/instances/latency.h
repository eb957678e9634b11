#pragma once

// Percentiles of a sample of latencies (seconds), for the instances benchmark's reports.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace quell::bench {

// The p-th percentile (0 < p <= 1) by the nearest-rank method; 0 for an empty sample.
inline double Percentile(std::vector<double> sample, double p) {
  if (sample.empty()) return 0;
  std::sort(sample.begin(), sample.end());
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sample.size())));
  return sample[std::clamp<size_t>(rank, 1, sample.size()) - 1];
}

}  // namespace quell::bench
