// Error-group polls streamed page by page (app/poller_errors.cc): each chunk commits on its
// own, an incomplete listing resolves nothing, and a key's health across pages stays "unhealthy
// wins".
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "fake_clock.h"
#include "fake_incident_store.h"
#include "quell/app/poller.h"

namespace quell::app {
namespace poller_stream_test {

using std::chrono::minutes;

class KeyEncoder : public core::PayloadEncoder {
 public:
  void Encode(const core::Incident& incident, core::TransitionKind,
              std::string& out) const override {
    out = incident.key;
  }
};

// A listing served page by page; page `fail_at` (0-based) fails and ends the walk.
class PagedSource : public core::ErrorGroupSource {
 public:
  std::vector<std::vector<core::ErrorGroup>> pages;
  size_t fail_at = static_cast<size_t>(-1);
  std::function<void(size_t page)> before_page;  // runs before each page is served
  int details = 0;

  core::GroupListing List() override {
    core::GroupListing listing;
    listing.groups.clear();
    listing = WalkPages([&listing](std::span<const core::ErrorGroup> page) {
      listing.groups.insert(listing.groups.end(), page.begin(), page.end());
    });
    return listing;
  }
  core::GroupListing WalkPages(
      const std::function<void(std::span<const core::ErrorGroup>)>& page) override {
    core::GroupListing walked;
    for (size_t i = 0; i < pages.size(); ++i) {
      if (before_page) before_page(i);
      if (i == fail_at) {
        walked.error = core::MakeError(core::ErrorCode::kUnavailable, "page timed out");
        return walked;
      }
      page(pages[i]);
      ++walked.pages;
    }
    walked.complete = true;
    return walked;
  }
  core::Result<core::GroupDetail> Detail(std::string_view id) override {
    ++details;
    core::GroupDetail detail;
    detail.group.id = std::string(id);
    return detail;
  }
};

class NullSink : public DecisionSink {
 public:
  std::vector<std::pair<std::string, core::DecisionKind>> seen;
  void OnDecision(const core::Observation& o, const core::Decision& d) override {
    seen.emplace_back(o.key, d.kind);
  }
  void Reset() override { seen.clear(); }
};

core::ErrorGroup Group(const std::string& id, const std::string& service, bool resolved = false) {
  core::ErrorGroup g;
  g.id = id;
  g.resolved = resolved;
  g.count = 1;
  g.last_seen = core::ParseRfc3339("2026-12-02T09:00:00Z").value();
  g.tags = {{"service", service}};
  return g;
}

// Keyed by group id unless `by_service`, which merges a service's groups into one key.
core::ErrorGroupCondition Errors(bool by_service = false) {
  core::ErrorGroupCondition c;
  c.common.name = "errors";
  c.common.channels = {"oncall"};
  c.common.policy.healthy_polls_to_close = 1;
  c.key = core::KeyTemplate::Parse(by_service ? "{tags.service}" : "{error_group_id}").value();
  return c;
}

class PollerStreamTest : public ::testing::Test {
 protected:
  PollerStreamTest() : clock_(core::ParseRfc3339("2026-12-02T09:00:00Z").value()) {}

  std::vector<std::string> OpenKeys() {
    std::vector<std::string> keys;
    for (const auto& [key, incident] : store_.state().incidents) {
      if (incident.is_open()) keys.push_back(key);
    }
    return keys;
  }

  testing::FakeIncidentStore store_;
  KeyEncoder encoder_;
  testing::FakeClock clock_;
  PagedSource source_;
};

// Two observations per chunk, two groups per page: each page commits before the next is read.
TEST_F(PollerStreamTest, EachChunkCommitsBeforeTheNextPageIsRead) {
  PollerOptions options;
  options.chunk_observations = 2;
  Poller poller(store_, encoder_, clock_, options);
  poller.Watch(Errors(), source_, "errors");
  source_.pages = {{Group("a", "s"), Group("b", "s")},
                   {Group("c", "s"), Group("d", "s")},
                   {Group("e", "s"), Group("f", "s")}};
  std::vector<size_t> open_before_page;
  source_.before_page = [&](size_t) { open_before_page.push_back(OpenKeys().size()); };
  NullSink sink;
  const CycleReport report = poller.RunOnce(sink);
  ASSERT_TRUE(report.ok()) << report.conditions[0].apply_error;
  EXPECT_EQ(open_before_page, (std::vector<size_t>{0, 2, 4}));
  EXPECT_EQ(OpenKeys().size(), 6U);
  // One poll row for the whole poll, counting every chunk's observations.
  ASSERT_EQ(store_.state().polls.size(), 1U);
  EXPECT_EQ(store_.state().polls.begin()->second.observations, 6U);
  EXPECT_EQ(report.conditions[0].observations, 6U);
  EXPECT_EQ(report.conditions[0].summary.poll.changed, 6U);
}

// Pages 1-2 of 5 are read, page 3 fails: what pages 1-2 showed failing opens (committed as they
// came), the open incidents no page showed are unknown, never healthy, and the watermark stays.
TEST_F(PollerStreamTest, AListingThatFailsOnPageThreeOpensWhatItSawAndResolvesNothing) {
  PollerOptions options;
  options.chunk_observations = 2;
  Poller poller(store_, encoder_, clock_, options);
  poller.Watch(Errors(), source_, "errors");
  source_.pages = {{Group("old1", "s"), Group("old2", "s")}, {Group("old3", "s")}};
  NullSink sink;
  ASSERT_TRUE(poller.RunOnce(sink).ok());
  ASSERT_EQ(OpenKeys(), (std::vector<std::string>{"old1", "old2", "old3"}));
  const auto mark = store_.GetSourceMark(WatermarkMarkName("errors")).value();

  clock_.Advance(minutes(1));
  core::ErrorGroup later = Group("new4", "s");
  later.last_seen = core::ParseRfc3339("2026-12-02T09:01:00Z").value();
  source_.pages = {{Group("new1", "s"), Group("old1", "s", /*resolved=*/true)},
                   {Group("new2", "s"), Group("new3", "s")},
                   {later},
                   {Group("new5", "s")},
                   {Group("new6", "s")}};
  source_.fail_at = 2;
  sink.seen.clear();
  const CycleReport report = poller.RunOnce(sink);
  EXPECT_FALSE(report.ok());
  ASSERT_EQ(report.conditions.size(), 1U);
  EXPECT_FALSE(report.conditions[0].source_ok);
  EXPECT_TRUE(report.conditions[0].applied) << report.conditions[0].apply_error;
  EXPECT_EQ(OpenKeys(), (std::vector<std::string>{"new1", "new2", "new3", "old1", "old2", "old3"}));
  for (const auto& [key, kind] : sink.seen) {
    EXPECT_NE(kind, core::DecisionKind::kResolve) << key;
    if (key.starts_with("old")) {
      EXPECT_EQ(kind, core::DecisionKind::kUnknown) << key;
    }
  }
  EXPECT_EQ(store_.GetSourceMark(WatermarkMarkName("errors")).value(), mark);

  // The next complete listing resolves what it no longer shows failing.
  clock_.Advance(minutes(1));
  source_.fail_at = static_cast<size_t>(-1);
  source_.pages = {{Group("new1", "s"), Group("new2", "s")}, {Group("new3", "s")}};
  ASSERT_TRUE(poller.RunOnce(sink).ok());
  EXPECT_EQ(OpenKeys(), (std::vector<std::string>{"new1", "new2", "new3"}));
}

// Two groups share a key: a healthy one on page 1 and a failing one on page 2. Committed page by
// page, the healthy group must not resolve the key before page 2 shows it failing.
TEST_F(PollerStreamTest, AHealthyGroupOnAnEarlierPageDoesNotResolveAKeyALaterPageShowsFailing) {
  PollerOptions options;
  options.chunk_observations = 1;
  Poller poller(store_, encoder_, clock_, options);
  poller.Watch(Errors(/*by_service=*/true), source_, "errors");
  source_.pages = {{Group("g1", "checkout")}};
  NullSink sink;
  ASSERT_TRUE(poller.RunOnce(sink).ok());
  ASSERT_EQ(OpenKeys(), std::vector<std::string>{"checkout"});

  clock_.Advance(minutes(1));
  source_.pages = {{Group("g1", "checkout", /*resolved=*/true), Group("x", "other")},
                   {Group("g2", "checkout")}};
  sink.seen.clear();
  ASSERT_TRUE(poller.RunOnce(sink).ok());
  EXPECT_EQ(OpenKeys(), (std::vector<std::string>{"checkout", "other"}));
  for (const auto& [key, kind] : sink.seen) EXPECT_NE(kind, core::DecisionKind::kResolve) << key;
  // Its failing pairs over both polls, for the shadow report.
  EXPECT_TRUE(store_.state().key_groups.contains({"checkout", "g2"}));
}

// A key listed healthy whose incident is about to resolve keeps its group through the walk, so
// the resolve after the walk is enriched with the group's detail.
TEST_F(PollerStreamTest, AResolveOfAKeyListedHealthyIsEnriched) {
  PollerOptions options;
  options.chunk_observations = 1;
  Poller poller(store_, encoder_, clock_, options);
  poller.Watch(Errors(), source_, "errors");
  source_.pages = {{Group("a", "s")}};
  NullSink sink;
  ASSERT_TRUE(poller.RunOnce(sink).ok());
  source_.details = 0;

  clock_.Advance(minutes(1));
  source_.pages = {{Group("a", "s", /*resolved=*/true)}, {Group("b", "s", /*resolved=*/true)}};
  const CycleReport report = poller.RunOnce(sink);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(OpenKeys().empty());
  EXPECT_EQ(report.conditions[0].enriched, 1U);
  EXPECT_EQ(source_.details, 1);
}

}  // namespace poller_stream_test
}  // namespace quell::app
