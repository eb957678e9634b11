#include "quell/app/incident_timeline.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace quell::app {
namespace {

using std::chrono::minutes;

const core::WallTime kT0 = *core::ParseRfc3339("2026-12-02T09:00:00Z");

core::LoggedDecision Line(int minute, uint64_t generation, uint64_t version, const char* decision,
                          const char* reason = "") {
  return core::LoggedDecision{
      generation, version, "d" + std::to_string(minute), kT0 + minutes(minute), decision, reason};
}

core::LoggedMark Mark(int minute, const char* health, const char* decision) {
  return core::LoggedMark{"m" + std::to_string(minute), kT0 + minutes(minute), 1, health, decision};
}

std::vector<std::string> Strip(const IncidentTimeline& timeline) {
  std::vector<std::string> out;
  for (const TimelineObservation& o : timeline.observations) {
    out.push_back(o.poll_id + ":" + o.health + ":" + o.decision);
  }
  return out;
}

core::Incident OpenIncident(uint64_t generation, int opened_minute) {
  core::Incident incident;
  incident.key = "acme:db";
  incident.generation = generation;
  incident.status = core::IncidentStatus::kOpen;
  incident.opened_at = kT0 + minutes(opened_minute);
  return incident;
}

TEST(IncidentTimelineTest, MergesDecisionsAndMarksByTimeDecisionFirstOnATie) {
  core::StoredTimeline stored;
  stored.decisions = {Line(0, 1, 1, "notify", "open"), Line(2, 1, 2, "wait_for_health"),
                      Line(3, 1, 3, "resolve", "manual")};
  stored.marks = {Mark(1, "unknown", "unknown"), Mark(2, "unhealthy", "stale")};
  const IncidentTimeline timeline = BuildTimeline(OpenIncident(1, 0), stored, 100);
  EXPECT_EQ(timeline.key, "acme:db");
  EXPECT_EQ(Strip(timeline), (std::vector<std::string>{"d0:unhealthy:notify", "m1:unknown:unknown",
                                                       "d2:healthy:wait_for_health",
                                                       "m2:unhealthy:stale", "d3:none:resolve"}));
  EXPECT_EQ(timeline.observations[0].version, 1u);
  EXPECT_EQ(timeline.observations[0].reason, "open");
  EXPECT_FALSE(timeline.observations[1].version.has_value());
}

TEST(IncidentTimelineTest, KeepsTheNewestEntriesOfEachList) {
  core::StoredTimeline stored;
  stored.decisions = {Line(0, 1, 1, "notify", "open"), Line(3, 1, 2, "update_only")};
  stored.marks = {Mark(1, "unknown", "unknown"), Mark(2, "unknown", "unknown")};
  for (uint64_t attempt = 1; attempt <= 3; ++attempt) {
    core::LoggedAttempt a;
    a.idempotency_key = "a";
    a.attempt = attempt;
    stored.attempts.push_back(a);
  }
  const IncidentTimeline timeline = BuildTimeline(OpenIncident(1, 0), stored, 2);
  EXPECT_EQ(Strip(timeline),
            (std::vector<std::string>{"m2:unknown:unknown", "d3:unhealthy:update_only"}));
  ASSERT_EQ(timeline.attempts.size(), 2u);
  EXPECT_EQ(timeline.attempts[0].attempt, 2u);
  EXPECT_EQ(timeline.attempts[1].attempt, 3u);
}

TEST(IncidentTimelineTest, TheCurrentGenerationIsListedWhenItsLogWasPruned) {
  core::StoredTimeline stored;
  stored.generations = {core::GenerationSpan{1, kT0, kT0 + minutes(5)}};
  IncidentTimeline timeline = BuildTimeline(OpenIncident(2, 30), stored, 10);
  ASSERT_EQ(timeline.generations.size(), 2u);
  EXPECT_EQ(timeline.generations[0].generation, 1u);
  EXPECT_EQ(timeline.generations[1].generation, 2u);
  EXPECT_EQ(timeline.generations[1].opened_at, kT0 + minutes(30));
  EXPECT_FALSE(timeline.generations[1].resolved_at.has_value());

  core::Incident resolved = OpenIncident(2, 30);
  resolved.status = core::IncidentStatus::kResolved;
  resolved.resolved_at = kT0 + minutes(40);
  stored.generations.push_back(core::GenerationSpan{2, std::nullopt, std::nullopt});
  timeline = BuildTimeline(resolved, stored, 1);
  ASSERT_EQ(timeline.generations.size(), 1u);
  EXPECT_EQ(timeline.generations[0].generation, 2u);
  EXPECT_EQ(timeline.generations[0].opened_at, kT0 + minutes(30));
  EXPECT_EQ(timeline.generations[0].resolved_at, kT0 + minutes(40));
}

// Who acked is kept on the incident: the timeline shows it on the current generation only.
TEST(IncidentTimelineTest, TheCurrentGenerationSaysWhoAckedIt) {
  core::StoredTimeline stored;
  stored.generations = {core::GenerationSpan{1, kT0, kT0 + minutes(5)},
                        core::GenerationSpan{2, std::nullopt, std::nullopt}};
  core::Incident incident = OpenIncident(2, 30);
  incident.acked_at = kT0 + minutes(31);
  incident.acked_by = "link:Ana Lima";
  const IncidentTimeline timeline = BuildTimeline(incident, stored, 10);
  ASSERT_EQ(timeline.generations.size(), 2u);
  EXPECT_FALSE(timeline.generations[0].acked_at.has_value());
  EXPECT_EQ(timeline.generations[0].acked_by, "");
  EXPECT_EQ(timeline.generations[1].acked_at, kT0 + minutes(31));
  EXPECT_EQ(timeline.generations[1].acked_by, "link:Ana Lima");
}

TEST(IncidentTimelineTest, HealthOfEachLoggedDecision) {
  EXPECT_STREQ(HealthOfDecision("notify", "cooldown_elapsed"), "unhealthy");
  EXPECT_STREQ(HealthOfDecision("update_only", "pending"), "unhealthy");
  EXPECT_STREQ(HealthOfDecision("wait_for_health", ""), "healthy");
  EXPECT_STREQ(HealthOfDecision("resolve", ""), "healthy");
  EXPECT_STREQ(HealthOfDecision("resolve", "manual"), "none");
  EXPECT_STREQ(HealthOfDecision("resolve", "expired"), "unknown");
  EXPECT_STREQ(HealthOfDecision("ignore", "hold_released"), "healthy");
}

}  // namespace
}  // namespace quell::app
