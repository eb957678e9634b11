// A poll that read its keys' incidents before its transaction (the poller's prediction) hands
// them to the apply (ApplyOptions::read_before), which then only checks each row's version
// (StoreTransaction::LoadVersions), on SQLite and PostgreSQL: an incident whose version holds is
// taken as read, one changed, created or still absent since is read again or made fresh.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"
#include "store_fixture.h"
#include "test_support.h"

namespace quell::testing {
namespace read_before_contract_test {

core::WallTime At(const std::string& text) { return *core::ParseRfc3339(text); }

class Sink : public app::DecisionSink {
 public:
  void OnDecision(const core::Observation& /*observation*/,
                  const core::Decision& decision) override {
    kinds.push_back(decision.kind);
  }
  void Reset() override { kinds.clear(); }
  std::vector<core::DecisionKind> kinds;
};

core::Observation Failing(const std::string& key, const std::string& at) {
  core::Observation o;
  o.key = key;
  o.at = At(at);
  o.health = core::Health::kUnhealthy;
  o.condition = "errors";
  return o;
}

class ReadBeforeContractTest : public StoreTest {
 protected:
  std::vector<core::DecisionKind> Apply(std::vector<core::Observation> poll, const std::string& at,
                                        app::ReadBefore read = {}) {
    app::ApplyOptions options;
    options.read_before = std::move(read);
    app::PollApplier applier(store_->incidents(), encoder_, options);
    app::VectorObservationStream stream(poll);
    Sink sink;
    auto applied = applier.Apply(stream, "poll-" + at, At(at), sink);
    EXPECT_TRUE(applied.ok()) << applied.error().message;
    return sink.kinds;
  }

  app::ReadBefore Read(std::vector<std::string> keys) {
    app::ReadBefore read;
    read.keys = std::move(keys);
    EXPECT_TRUE(store_->incidents().FindIncidents(read.keys, read.incidents).ok());
    return read;
  }

  core::Incident Find(const std::string& key) {
    auto found = store_->incidents().FindIncident(key);
    EXPECT_TRUE(found.ok() && found->has_value()) << key;
    return found.ok() && found->has_value() ? **found : core::Incident{};
  }

  jsonl::JsonPayloadEncoder encoder_;
};

TEST_P(ReadBeforeContractTest, LoadsTheStoredVersionsInKeyOrder) {
  Apply({Failing("b", "2026-12-02T09:00:00Z"), Failing("a", "2026-12-02T09:00:00Z")},
        "2026-12-02T09:00:00Z");
  Apply({Failing("b", "2026-12-02T09:01:00Z")}, "2026-12-02T09:01:00Z");
  auto tx = store_->incidents().Begin();
  ASSERT_TRUE(tx.ok()) << tx.error().message;
  const std::vector<std::string> keys = {"a", "absent", "b"};
  std::vector<std::pair<std::string, uint64_t>> versions;
  ASSERT_TRUE((*tx)->LoadVersions(keys, versions).ok());
  EXPECT_EQ(versions, (std::vector<std::pair<std::string, uint64_t>>{{"a", Find("a").version},
                                                                     {"b", Find("b").version}}));
  EXPECT_EQ(versions[1].second, 2u);
  std::vector<std::pair<std::string, uint64_t>> none;
  EXPECT_TRUE((*tx)->LoadVersions({}, none).ok());
  EXPECT_TRUE(none.empty());
}

// What was read is what the apply decides on and writes, while its version holds: a label only
// the read copy carries ends up stored, so the row was not read again.
TEST_P(ReadBeforeContractTest, TakesAnIncidentAsReadWhileItsVersionHolds) {
  Apply({Failing("a", "2026-12-02T09:00:00Z")}, "2026-12-02T09:00:00Z");
  app::ReadBefore read = Read({"a", "new"});
  ASSERT_EQ(read.incidents.size(), 1u);
  read.incidents[0].labels = {{"read", "before"}};
  // Past the cooldown (10 minutes): a renotify, so the incident is written.
  EXPECT_EQ(
      Apply({Failing("a", "2026-12-02T09:20:00Z"), Failing("new", "2026-12-02T09:20:00Z")},
            "2026-12-02T09:20:00Z", std::move(read)),
      (std::vector<core::DecisionKind>{core::DecisionKind::kNotify, core::DecisionKind::kNotify}));
  EXPECT_EQ(Find("a").labels, (core::Labels{{"read", "before"}}));
  EXPECT_EQ(Find("a").version, 2u);
  EXPECT_EQ(Find("new").version, 1u);
}

// Another writer between the read and the apply: a changed incident and one created since are
// read again under the transaction's lock, so nothing conflicts and nothing stale is written.
TEST_P(ReadBeforeContractTest, ReadsAgainWhatChangedSinceItWasRead) {
  Apply({Failing("a", "2026-12-02T09:00:00Z")}, "2026-12-02T09:00:00Z");
  app::ReadBefore read = Read({"a", "b"});
  ASSERT_EQ(read.incidents.size(), 1u);
  read.incidents[0].labels = {{"read", "before"}};
  Apply({Failing("a", "2026-12-02T09:11:00Z"), Failing("b", "2026-12-02T09:11:00Z")},
        "2026-12-02T09:11:00Z");
  ASSERT_EQ(Find("a").version, 2u);
  // Inside the cooldown of the 09:11 renotify and b's open: update_only for both.
  EXPECT_EQ(Apply({Failing("a", "2026-12-02T09:12:00Z"), Failing("b", "2026-12-02T09:12:00Z")},
                  "2026-12-02T09:12:00Z", std::move(read)),
            (std::vector<core::DecisionKind>{core::DecisionKind::kUpdateOnly,
                                             core::DecisionKind::kUpdateOnly}));
  EXPECT_TRUE(Find("a").labels.empty());
  EXPECT_EQ(Find("a").version, 3u);
  EXPECT_EQ(Find("a").last_notified_at, At("2026-12-02T09:11:00Z"));
  EXPECT_EQ(Find("b").version, 2u);
}

INSTANTIATE_TEST_SUITE_P(Sqlite, ReadBeforeContractTest, ::testing::Values(Backend::kSqlite));
INSTANTIATE_TEST_SUITE_P(Postgres, ReadBeforeContractTest, ::testing::Values(Backend::kPostgres));

}  // namespace read_before_contract_test
}  // namespace quell::testing
