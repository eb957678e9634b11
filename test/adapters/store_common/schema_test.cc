#include "quell/adapters/store_common/schema.h"

#include <gtest/gtest.h>

#include <string>

namespace quell::store {
namespace {

TEST(SchemaTest, MigrationsAreNumberedFromOneWithoutGaps) {
  int expected = 1;
  for (const Migration& m : Migrations()) EXPECT_EQ(m.version, expected++);
}

TEST(SchemaTest, BothDialectsCreateTheSameTables) {
  for (const Migration& m : Migrations()) {
    for (const char* table : {"incidents", "decisions", "polls", "outbox"}) {
      const std::string create = std::string("CREATE TABLE ") + table + " (";
      if (m.version != 1) continue;
      EXPECT_NE(std::string(m.sqlite_sql).find(create), std::string::npos) << table;
      EXPECT_NE(std::string(m.postgres_sql).find(create), std::string::npos) << table;
    }
  }
}

}  // namespace
}  // namespace quell::store
