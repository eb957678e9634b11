#pragma once

#include <functional>
#include <span>
#include <string_view>

#include "quell/adapters/infrai/infrai_client.h"
#include "quell/core/ports/sources.h"

namespace quell::infrai {

// Error groups from GET /v1/errors/groups, following `next_cursor` page by page (absent or
// null ends the walk), and GET /v1/errors/group_detail/{id} for enrichment. Any page that
// fails, does not parse, lacks a field the conditions read from most of its groups (schema
// drift, see CheckFieldDrift), or repeats a cursor ends the walk incomplete with the reason, which
// the poller turns into unknown observations. Thread-safe: each call parses with its own
// parser.
class InfraiErrorSource : public core::ErrorGroupSource {
 public:
  explicit InfraiErrorSource(const InfraiClient& client);

  core::GroupListing List() override;
  // Each page goes to `page` as soon as it is read and parsed whole; a page that fails gives
  // nothing, and the walk ends there.
  core::GroupListing WalkPages(
      const std::function<void(std::span<const core::ErrorGroup>)>& page) override;
  core::Result<core::GroupDetail> Detail(std::string_view group_id) override;

 private:
  const InfraiClient& client_;
};

}  // namespace quell::infrai
