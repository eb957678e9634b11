// The incident list's page read (OperatorStore::ListIncidentPage), on SQLite and PostgreSQL:
// filters, the triage order, offset and limit, the total, the newest evidence level and the
// sent notifications of the current generation.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "outbox_test_support.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace {

using std::chrono::minutes;

class IncidentPageContractTest : public StoreTest {
 protected:
  // An incident of condition `condition` written as it is given.
  static core::Incident Incident(const std::string& key, const std::string& condition,
                                 core::IncidentStatus status) {
    core::Incident in;
    in.key = key;
    in.condition = condition;
    in.status = status;
    in.generation = status == core::IncidentStatus::kNone ? 0 : 1;
    in.version = 1;
    return in;
  }

  void Put(const std::vector<core::Incident>& incidents) {
    std::vector<core::IncidentWrite> writes;
    for (const core::Incident& in : incidents) writes.push_back({in, 0});
    auto tx = store_->incidents().Begin();
    ASSERT_TRUE(tx.ok()) << tx.error().message;
    ASSERT_TRUE((*tx)->PutIncidents(writes).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }

  std::vector<std::string> Keys(const core::IncidentPageQuery& query, uint64_t* total = nullptr) {
    auto page = store_->operators().ListIncidentPage(query);
    EXPECT_TRUE(page.ok()) << page.error().message;
    std::vector<std::string> keys;
    if (!page.ok()) return keys;
    for (const core::ListedIncident& listed : page->incidents) keys.push_back(listed.incident.key);
    if (total != nullptr) *total = page->total;
    return keys;
  }

  // Open a (older), b (newer), c (resolved long ago), d (resolved recently), e (never opened),
  // f (open, same time as b: ties by key).
  void PutMix() {
    core::Incident a = Incident("acme:db", "db-errors", core::IncidentStatus::kOpen);
    a.opened_at = t0_;
    a.labels = {{"team", "Payments"}, {"tenant", "acme"}};
    core::Incident b = Incident("beta:api", "api-errors", core::IncidentStatus::kOpen);
    b.opened_at = t0_ + minutes(10);
    b.labels = {{"tenant", "beta"}};
    core::Incident c = Incident("acme:old", "db-errors", core::IncidentStatus::kResolved);
    c.opened_at = t0_ - minutes(100);
    c.resolved_at = t0_ - minutes(90);
    c.labels = {{"tenant", "acme"}};
    core::Incident d = Incident("zeta:cache", "cache", core::IncidentStatus::kResolved);
    d.opened_at = t0_ - minutes(50);
    d.resolved_at = t0_ - minutes(5);
    core::Incident e = Incident("acme:pending", "db-errors", core::IncidentStatus::kNone);
    e.unhealthy_streak = 1;
    core::Incident f = Incident("alpha:api", "api-errors", core::IncidentStatus::kOpen);
    f.opened_at = t0_ + minutes(10);
    Put({a, b, c, d, e, f});
  }

  const core::WallTime t0_ = OutboxEpoch();
};

TEST_P(IncidentPageContractTest, TriageOrderPutsOpenNewestFirstThenRecentlyResolved) {
  PutMix();
  core::IncidentPageQuery query;
  query.order = core::IncidentOrder::kTriage;
  uint64_t total = 0;
  EXPECT_EQ(Keys(query, &total),
            (std::vector<std::string>{"alpha:api", "beta:api", "acme:db", "zeta:cache", "acme:old",
                                      "acme:pending"}));
  EXPECT_EQ(total, 6u);

  query.order = core::IncidentOrder::kKey;
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"acme:db", "acme:old", "acme:pending",
                                                   "alpha:api", "beta:api", "zeta:cache"}));
}

TEST_P(IncidentPageContractTest, OffsetAndLimitWindowTheOrderAndTheTotalCountsEveryMatch) {
  PutMix();
  core::IncidentPageQuery query;
  query.order = core::IncidentOrder::kTriage;
  query.offset = 2;
  query.limit = 2;
  uint64_t total = 0;
  EXPECT_EQ(Keys(query, &total), (std::vector<std::string>{"acme:db", "zeta:cache"}));
  EXPECT_EQ(total, 6u);
  query.offset = 5;
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"acme:pending"}));
  query.offset = 9;
  EXPECT_EQ(Keys(query, &total), (std::vector<std::string>{}));
  EXPECT_EQ(total, 6u);
  query.limit.reset();
  query.offset = 4;  // an offset without a limit runs to the end
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"acme:old", "acme:pending"}));
}

TEST_P(IncidentPageContractTest, TextMatchesKeyConditionOrALabelInAnyCase) {
  PutMix();
  core::IncidentPageQuery query;
  query.text = "acme";  // the keys acme:*; their tenant label says acme too
  uint64_t total = 0;
  EXPECT_EQ(Keys(query, &total), (std::vector<std::string>{"acme:db", "acme:old", "acme:pending"}));
  EXPECT_EQ(total, 3u);
  query.text = "team=pay";  // a label as name=value, stored "Payments", asked lower-case
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"acme:db"}));
  query.text = "api-err";  // the condition
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"alpha:api", "beta:api"}));
  query.text = "tenant=beta";
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"beta:api"}));
  query.text = "%";  // no LIKE wildcard: a plain character nobody has
  EXPECT_EQ(Keys(query, &total), (std::vector<std::string>{}));
  EXPECT_EQ(total, 0u);
  // A label the JSON text escapes is still found, and '=' inside a value too.
  core::Incident quoted = Incident("q:1", "cache", core::IncidentStatus::kOpen);
  quoted.labels = {{"note", "say \"hi\" a=b"}};
  Put({quoted});
  query.text = "note=say \"hi\" a=b";
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"q:1"}));
  query.text = "e=say";
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"q:1"}));
  query.text = "hi\" a=";
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"q:1"}));
}

TEST_P(IncidentPageContractTest, LabelStatusAndConditionFiltersCombine) {
  PutMix();
  core::IncidentPageQuery query;
  query.label.emplace("tenant", "acme");
  uint64_t total = 0;
  EXPECT_EQ(Keys(query, &total), (std::vector<std::string>{"acme:db", "acme:old"}));
  EXPECT_EQ(total, 2u);
  query.label.emplace("tenant", "acm");  // exactly the value, not a prefix
  EXPECT_EQ(Keys(query), (std::vector<std::string>{}));
  query.label.emplace("tenant", "acme");
  query.status = core::IncidentStatusFilter::kOpen;
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"acme:db"}));
  query.status = core::IncidentStatusFilter::kResolved;
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"acme:old"}));
  query.label.reset();
  query.condition = "db-errors";
  query.status = core::IncidentStatusFilter::kAll;
  EXPECT_EQ(Keys(query), (std::vector<std::string>{"acme:db", "acme:old", "acme:pending"}));
}

TEST_P(IncidentPageContractTest, EachRowCarriesTheNewestEvidenceLevelAndSentRowsOfItsGeneration) {
  core::Incident a = Incident("acme:db", "c", core::IncidentStatus::kOpen);
  a.generation = 2;
  a.opened_at = t0_;
  a.recent_evidence = {R"({"group":"g1","level":"warning"})", R"({"group":"g2","level":"fatal"})"};
  core::Incident b = Incident("beta:db", "c", core::IncidentStatus::kOpen);
  b.opened_at = t0_;
  b.recent_evidence = {R"({"group":"g1"})"};
  Put({a, b});
  // acme:db: generation 1 has a sent row (not counted), generation 2 two sent rows on two
  // channels and one pending.
  std::vector<core::OutboxRow> rows = {
      PendingRow("acme:db", 1, 1, "slack", t0_), PendingRow("acme:db", 2, 1, "slack", t0_),
      PendingRow("acme:db", 2, 1, "email", t0_), PendingRow("acme:db", 2, 2, "slack", t0_)};
  ASSERT_EQ(InsertRows(store_->incidents(), rows), "");
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(store_->incidents().MarkSent(rows[i].idempotency_key, "m", t0_).ok());
  }
  auto page = store_->operators().ListIncidentPage({});
  ASSERT_TRUE(page.ok()) << page.error().message;
  ASSERT_EQ(page->incidents.size(), 2u);
  EXPECT_EQ(page->incidents[0].incident.key, "acme:db");
  EXPECT_EQ(page->incidents[0].newest_level, "fatal");
  EXPECT_EQ(page->incidents[0].notifications_sent, 2u);
  EXPECT_EQ(page->incidents[0].incident.recent_evidence.size(), 2u);  // the whole row decoded
  EXPECT_EQ(page->incidents[1].newest_level, "");
  EXPECT_EQ(page->incidents[1].notifications_sent, 0u);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, IncidentPageContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, IncidentPageContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace
}  // namespace quell::testing
