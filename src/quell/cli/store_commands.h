#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "quell/adapters/text_output/text_table.h"
#include "quell/core/ports/outbox_row.h"

namespace quell::cli {

struct StoreQueryOptions {
  std::string store_url;    // --store; wins over the config's
  std::string config_path;  // -c: the store is the config's `store:`; neither: sqlite:quell.db
  text_output::ListFormat format = text_output::ListFormat::kTable;
};

// `incidents list`'s filters, each as the same parameter of GET /v1/incidents reads it
// (app::IncidentFilterFrom, so both refuse the same values); empty when not given.
struct IncidentListFlags {
  std::string status;     // open, resolved or all
  std::string condition;  // a condition's name
  std::string label;      // NAME=VALUE
  std::string limit;      // 1..10000
};

// `quell incidents list`, `quell incidents show KEY` and `quell outbox list [--status S]`.
// None creates a store: a missing SQLite file is "no store at PATH". Each returns 0; 1 for a
// store error, no store or (show) an unknown key; 2 for a bad --store URL, config or filter.
int RunIncidentsList(const StoreQueryOptions& options, const IncidentListFlags& flags,
                     std::FILE* out, std::FILE* err);
int RunIncidentsShow(const StoreQueryOptions& options, const std::string& key, std::FILE* out,
                     std::FILE* err);
int RunOutboxList(const StoreQueryOptions& options, std::optional<core::OutboxStatus> status,
                  std::FILE* out, std::FILE* err);

}  // namespace quell::cli
