#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "quell/adapters/sqlite/sqlite_statement.h"

namespace quell::sqlite {

// One statement text for many rows at once: `sql(rows)` holds `rows` groups of parameters
// (a multi-row VALUES). Prepared for 1, 2, 4, ... kMaxRows rows, each when first needed and then
// reused, so a batch of n rows takes one statement per bit of n (a full batch of 256: one)
// instead of one per row. Private to the sqlite adapter; not thread-safe, like its connection.
class BatchStatement {
 public:
  static constexpr size_t kMaxRows = 256;
  using Sql = std::string (*)(size_t rows);

  explicit BatchStatement(Sql sql) : sql_(sql) {}

  // The statement for the largest prepared size that is at most `rows` (at least 1), prepared
  // now if it was not; `*taken` is that size.
  core::Result<Stmt*> For(size_t rows, sqlite3* db, const std::string& path, size_t* taken) {
    size_t size = kMaxRows;
    size_t slot = kSlots - 1;
    while (size > rows && slot > 0) {
      size /= 2;
      --slot;
    }
    *taken = size;
    if (!prepared_[slot]) {
      if (auto ok = stmts_[slot].Prepare(db, sql_(size), path); !ok) return ok.error();
      prepared_[slot] = true;
    }
    return &stmts_[slot];
  }

 private:
  static constexpr size_t kSlots = 9;  // 1 .. 256 rows
  Sql sql_;
  std::array<Stmt, kSlots> stmts_;
  std::array<bool, kSlots> prepared_{};
};

// "(?3,?4,?5),(?6,?7,?8)": `rows` groups of `per_row` numbered parameters from `first`, where
// `shared` (when not 0) stands at place `shared_at` of each group.
std::string ValuesGroups(size_t rows, size_t per_row, size_t first, size_t shared = 0,
                         size_t shared_at = 0);

}  // namespace quell::sqlite
