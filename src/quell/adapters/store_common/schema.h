#pragma once

#include <span>

namespace quell::store {

// One forward-only schema step. Both dialects describe the same logical schema; a database
// records each applied version in schema_migrations and never runs a step twice.
struct Migration {
  int version;
  const char* name;
  const char* sqlite_sql;
  const char* postgres_sql;
};

// In version order, starting at 1.
std::span<const Migration> Migrations();

}  // namespace quell::store
