#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "quell/core/result.h"

namespace quell::sentry {

// Where a Sentry listing goes on, read from one answer's `Link` header:
//   <https://sentry.io/api/0/...?&cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"
// Sentry always sends a "previous" and a "next" link; `results` says whether the next page
// holds anything, so the walk ends at results="false", not at a missing link.
struct NextPage {
  bool more = false;   // rel="next" with results="true"
  std::string cursor;  // its cursor attribute, else the cursor= of its URL
};

// Pure. An absent or empty header is the last page (a single-page answer). kCorrupt naming the
// problem for a header that is not a list of <url>; params, for a "next" link without a
// results attribute, or for one with more results and no cursor.
core::Result<NextPage> ParseNextPage(std::string_view link_header);

}  // namespace quell::sentry
