#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "quell/cli/listing.h"
#include "quell/core/ports/outbox_row.h"

namespace quell::cli {

struct StoreQueryOptions {
  std::string store_url = "sqlite:quell.db";
  ListFormat format = ListFormat::kTable;
};

// `quell incidents list`, `quell incidents show KEY` and `quell outbox list [--status S]`.
// Each returns 0; 1 for a store error or (show) an unknown key; 2 for a bad --store URL.
int RunIncidentsList(const StoreQueryOptions& options, std::FILE* out, std::FILE* err);
int RunIncidentsShow(const StoreQueryOptions& options, const std::string& key, std::FILE* out,
                     std::FILE* err);
int RunOutboxList(const StoreQueryOptions& options, std::optional<core::OutboxStatus> status,
                  std::FILE* out, std::FILE* err);

}  // namespace quell::cli
