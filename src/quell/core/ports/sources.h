#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/conditions/error_group.h"
#include "quell/core/conditions/metric_series.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::core {

// Reads error groups. Implementations retry transient failures within their own budget; what
// they return is final for this poll. Thread-safe: enrichment calls Detail concurrently.
class ErrorGroupSource {
 public:
  virtual ~ErrorGroupSource() = default;
  // Walks the whole listing. Never an error: a failed walk is a listing with complete=false.
  virtual GroupListing List() = 0;
  // Walks the listing a page at a time, handing each page's groups to `page` before reading
  // the next, so the caller holds one page, not the listing. Returns how the walk ended
  // (complete, pages, error; `groups` empty). By default: List(), handed over as one page.
  virtual GroupListing WalkPages(const std::function<void(std::span<const ErrorGroup>)>& page) {
    GroupListing listing = List();
    if (!listing.groups.empty()) page(listing.groups);
    listing.groups.clear();
    return listing;
  }
  // One group with its recent events. kNotFound for an unknown id; the transport's codes;
  // kCorrupt when the answer does not have the expected shape.
  virtual Result<GroupDetail> Detail(std::string_view group_id) = 0;
};

class MetricSource {
 public:
  virtual ~MetricSource() = default;
  // kCorrupt when the answer does not fit the expected shape; the transport's codes otherwise.
  virtual Result<MetricAnswer> Query(const MetricQuery& query) = 0;
};

}  // namespace quell::core
