// The schema-drift rule on one listing page, over parsed JSON: a field most groups lack fails,
// a field a few groups lack (an untagged group) does not.
#include "quell/adapters/infrai/field_drift.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <vector>

namespace quell::infrai {
namespace {

core::Status Check(const std::string& page, const std::vector<std::string>& fields,
                   const InfraiFields& names = {}) {
  simdjson::dom::parser parser;
  simdjson::dom::array groups;
  EXPECT_FALSE(parser.parse(page).get_array().get(groups)) << page;
  return CheckFieldDrift(groups, names, fields, "GET /v1/errors/groups (page 1)");
}

TEST(FieldDriftTest, AFieldAFewGroupsLackPasses) {
  const std::string page =
      R"([{"id":"a","level":"error","tags":{"tenant":"acme"}},
          {"id":"b","level":"error","tags":{}},
          {"id":"c","level":"error","tags":null},
          {"id":"d","level":"error"}])";
  EXPECT_TRUE(Check(page, {"level", "tags"}).ok());
}

TEST(FieldDriftTest, AFieldMostGroupsLackFailsNamingItAndTheAliasMap) {
  const std::string page =
      R"([{"id":"a","x_level":"error"},{"id":"b","x_level":"error"},{"id":"c","level":"error"}])";
  const core::Status status = Check(page, {"level"});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, core::ErrorCode::kCorrupt);
  EXPECT_EQ(status.error().message,
            "GET /v1/errors/groups (page 1): field \"level\" is missing from 2 of 3 groups (tried "
            "level); if the source renamed it, map the new name in the alias map, "
            "infrai.fields.level; open incidents are held until it is back");
}

TEST(FieldDriftTest, AnAliasFromTheMapCountsAsPresent) {
  InfraiFields names;
  names.tags = {"tags", "labels"};
  EXPECT_TRUE(Check(R"([{"id":"a","labels":{}},{"id":"b","labels":{}}])", {"tags"}, names).ok());
}

TEST(FieldDriftTest, AnEmptyPageAndUnreadFieldsPass) {
  EXPECT_TRUE(Check("[]", {"level"}).ok());
  EXPECT_TRUE(Check(R"([{"id":"a"}])", {}).ok());
}

TEST(FieldDriftTest, FieldsReadCoversKeyFilterAndRule) {
  core::ErrorGroupCondition condition;
  condition.key = *core::KeyTemplate::Parse("{tags.tenant}:{service}:{error_group_id}");
  condition.filter.levels = {"error"};
  condition.rule = core::UnhealthyRule::kNewEvents;
  const std::vector<core::ErrorGroupCondition> conditions = {condition};
  EXPECT_EQ(FieldsRead(conditions),
            (std::vector<std::string>{"last_seen", "level", "service", "tags"}));
}

}  // namespace
}  // namespace quell::infrai
