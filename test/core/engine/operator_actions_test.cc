#include "quell/core/engine/operator_actions.h"

#include <gtest/gtest.h>

#include <chrono>

#include "quell/core/engine/evaluate.h"
#include "quell/core/engine/silence.h"

namespace quell::core {
namespace {

using std::chrono::minutes;

WallTime At(int minute) { return WallTime(minutes(29'000'000 + minute)); }

Observation Obs(int minute, Health health) {
  Observation o;
  o.key = "acme:db";
  o.at = At(minute);
  o.health = health;
  return o;
}

Policy TestPolicy() {
  Policy p;
  p.cooldown = minutes(10);
  p.healthy_polls_to_close = 2;
  return p;
}

TEST(GlobMatchTest, StarMatchesAnyRunAndEverythingElseIsLiteral) {
  EXPECT_TRUE(GlobMatch("acme:*", "acme:db"));
  EXPECT_TRUE(GlobMatch("acme:*", "acme:"));
  EXPECT_FALSE(GlobMatch("acme:*", "acm:db"));
  EXPECT_TRUE(GlobMatch("*:db", "acme:db"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXXbYY"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("acme:db", "acme:db"));
  EXPECT_FALSE(GlobMatch("acme:db", "acme:dbx"));
  EXPECT_FALSE(GlobMatch("acme?db", "acme:db"));  // only * is special
  EXPECT_TRUE(GlobMatch("**a**", "bab"));
}

TEST(GlobMatchTest, APathologicalPatternStaysFast) {
  const std::string key(5000, 'a');
  const std::string pattern = std::string(50, '*') + "a*a*a*a*a*b";
  EXPECT_FALSE(GlobMatch(pattern, key));  // would take forever with naive backtracking
}

// Keys are outsiders' text: a pushed alert labelled `*` has the key `*:*`. An exact silence of
// such a key silences it alone; the same text as a glob silences every key it matches. Only `*`
// is special in a glob, so `?` and `[` are literal in both.
TEST(SilenceTest, AnExactSilenceMatchesItsKeyAloneWhateverTheKeyHolds) {
  const Silence star{1, "*:*", At(10), "noisy", "alice", At(0), SilenceMatch::kExact};
  EXPECT_TRUE(Matches(star, "*:*"));
  for (const char* other : {"acme:db", "*:db", "acme:*", ":", "*:*x", "**:*"}) {
    EXPECT_FALSE(Matches(star, other)) << other;
  }
  const Silence star_glob{2, "*:*", At(10), "noisy", "alice", At(0), SilenceMatch::kGlob};
  EXPECT_TRUE(Matches(star_glob, "acme:db"));
  EXPECT_TRUE(Matches(star_glob, "*:*"));

  const Silence question{3, "a?b", At(10), "r", "alice", At(0), SilenceMatch::kExact};
  EXPECT_TRUE(Matches(question, "a?b"));
  EXPECT_FALSE(Matches(question, "axb"));
  const Silence bracket{4, "x[ab]*", At(10), "r", "alice", At(0), SilenceMatch::kExact};
  EXPECT_TRUE(Matches(bracket, "x[ab]*"));
  EXPECT_FALSE(Matches(bracket, "xa"));
  EXPECT_FALSE(Matches(bracket, "x[ab]c"));
  const Silence bracket_glob{5, "x[ab]*", At(10), "r", "alice", At(0), SilenceMatch::kGlob};
  EXPECT_TRUE(Matches(bracket_glob, "x[ab]c"));
  EXPECT_FALSE(Matches(bracket_glob, "xa"));

  const Silence silences[] = {star};
  EXPECT_TRUE(IsSilenced(silences, "*:*", At(1)));
  EXPECT_FALSE(IsSilenced(silences, "acme:db", At(1)));
  EXPECT_FALSE(IsSilenced(silences, "*:*", At(10)));  // expired
}

TEST(SilenceTest, TheKindHasAStoredName) {
  EXPECT_EQ(SilenceMatchName(SilenceMatch::kExact), "exact");
  EXPECT_EQ(SilenceMatchName(SilenceMatch::kGlob), "glob");
  EXPECT_EQ(ParseSilenceMatch("exact"), SilenceMatch::kExact);
  EXPECT_EQ(ParseSilenceMatch("glob"), SilenceMatch::kGlob);
  EXPECT_EQ(ParseSilenceMatch("Exact"), std::nullopt);
  EXPECT_EQ(Silence{}.match, SilenceMatch::kGlob);  // what a silence was before kinds
}

TEST(SilenceTest, AnExactKeyMayBeAsLongAsAKeyAndAGlobStaysShort) {
  Silence s{0, std::string(4096, 'k'), At(10), "r", "alice", At(0), SilenceMatch::kExact};
  EXPECT_TRUE(ValidateSilence(s, At(0)).ok());
  s.match = SilenceMatch::kGlob;
  EXPECT_FALSE(ValidateSilence(s, At(0)).ok());
  s.pattern = std::string(65 * 1024, 'k');
  s.match = SilenceMatch::kExact;
  EXPECT_FALSE(ValidateSilence(s, At(0)).ok());
  s.pattern = "a\tb";
  EXPECT_NE(ValidateSilence(s, At(0)).error().message.find("key holds a control"),
            std::string::npos);
}

TEST(SilenceTest, OnlyActiveMatchingSilencesSilence) {
  const Silence silences[] = {{1, "acme:*", At(10), "maint", "alice", At(0)},
                              {2, "beta:*", At(5), "old", "bob", At(0)}};
  EXPECT_TRUE(IsSilenced(silences, "acme:db", At(9)));
  EXPECT_FALSE(IsSilenced(silences, "acme:db", At(10)));  // expired exactly at expires_at
  EXPECT_FALSE(IsSilenced(silences, "beta:db", At(6)));
  EXPECT_FALSE(IsSilenced(silences, "gamma:db", At(1)));
}

TEST(SilenceTest, ValidationNamesWhatIsWrong) {
  Silence s{0, "acme:*", At(10), "maint", "alice", At(0)};
  EXPECT_TRUE(ValidateSilence(s, At(0)).ok());
  Silence empty = s;
  empty.pattern.clear();
  EXPECT_EQ(ValidateSilence(empty, At(0)).error().code, ErrorCode::kInvalidArgument);
  Silence no_reason = s;
  no_reason.reason.clear();
  EXPECT_NE(ValidateSilence(no_reason, At(0)).error().message.find("reason"), std::string::npos);
  EXPECT_FALSE(ValidateSilence(s, At(10)).ok());  // already expired
  Silence control = s;
  control.pattern = "a\nb";
  EXPECT_FALSE(ValidateSilence(control, At(0)).ok());
}

TEST(AcknowledgeTest, AcksAnOpenIncidentOnceAndBumpsTheVersion) {
  Incident in;
  const Policy policy = TestPolicy();
  Evaluate(in, Obs(0, Health::kUnhealthy), policy);
  ASSERT_EQ(in.version, 1u);
  EXPECT_EQ(Acknowledge(in, At(1), "alice"), AckOutcome::kAcked);
  EXPECT_EQ(in.version, 2u);
  EXPECT_EQ(in.acked_at, At(1));
  EXPECT_EQ(in.acked_by, "alice");
  EXPECT_EQ(in.last_observed_at, At(0));
  EXPECT_EQ(Acknowledge(in, At(2), "bob"), AckOutcome::kAlreadyAcked);
  EXPECT_EQ(in.acked_by, "alice");
  EXPECT_EQ(in.version, 2u);
}

TEST(AcknowledgeTest, NothingOpenIsNotAcked) {
  Incident in;
  EXPECT_EQ(Acknowledge(in, At(1), "alice"), AckOutcome::kNotOpen);
  EXPECT_EQ(in.version, 0u);
  EXPECT_FALSE(in.acked_at.has_value());
}

TEST(AcknowledgeTest, AnAckHoldsRenotifyUntilTheKeyOpensAgain) {
  Incident in;
  const Policy policy = TestPolicy();
  Evaluate(in, Obs(0, Health::kUnhealthy), policy);
  Acknowledge(in, At(1), "alice");
  Decision d = Evaluate(in, Obs(20, Health::kUnhealthy), policy);
  EXPECT_EQ(d.kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(d.reason, Reason::kAcknowledged);
  Evaluate(in, Obs(21, Health::kHealthy), policy);
  EXPECT_EQ(Evaluate(in, Obs(22, Health::kHealthy), policy).kind, DecisionKind::kResolve);
  d = Evaluate(in, Obs(23, Health::kUnhealthy), policy);
  EXPECT_EQ(d.kind, DecisionKind::kNotify);
  EXPECT_EQ(d.generation, 2u);
  EXPECT_FALSE(in.acked_at.has_value());
  EXPECT_TRUE(in.acked_by.empty());
}

TEST(ResolveByHandTest, ClosesAnOpenIncidentAsAResolveTransition) {
  Incident in;
  const Policy policy = TestPolicy();
  Evaluate(in, Obs(0, Health::kUnhealthy), policy);
  Evaluate(in, Obs(1, Health::kHealthy), policy);  // streak 1
  const Decision d = ResolveByHand(in, At(5));
  EXPECT_TRUE(d.changed);
  EXPECT_EQ(d.kind, DecisionKind::kResolve);
  EXPECT_EQ(d.reason, Reason::kManual);
  EXPECT_EQ(d.transition, TransitionKind::kResolve);
  EXPECT_EQ(d.version, 3u);
  EXPECT_EQ(d.generation, 1u);
  EXPECT_EQ(in.status, IncidentStatus::kResolved);
  EXPECT_EQ(in.resolved_at, At(5));
  EXPECT_EQ(in.healthy_streak, 0u);
  EXPECT_EQ(in.last_observed_at, At(1));  // not an observation
  EXPECT_STREQ(ReasonName(d.reason), "manual");
  EXPECT_TRUE(in.held);
  EXPECT_FALSE(in.held_until.has_value());
  // An observation older than the manual resolve still applies (it is not stale).
  EXPECT_EQ(Evaluate(in, Obs(2, Health::kUnhealthy), policy).kind, DecisionKind::kUpdateOnly);
  EXPECT_EQ(in.generation, 1u);
}

TEST(ResolveByHandTest, AStillFailingKeyIsRecordedButDoesNotPageUntilSeenHealthy) {
  Incident in;
  const Policy policy = TestPolicy();
  Evaluate(in, Obs(0, Health::kUnhealthy), policy);
  ResolveByHand(in, At(1));
  const uint64_t events = in.event_count;
  for (int minute = 2; minute < 60; ++minute) {  // far past the cooldown
    const Decision d = Evaluate(in, Obs(minute, Health::kUnhealthy), policy);
    ASSERT_EQ(d.kind, DecisionKind::kUpdateOnly) << minute;
    ASSERT_EQ(d.reason, Reason::kManuallyResolved);
    ASSERT_TRUE(d.changed);
    ASSERT_FALSE(d.transition.has_value());
    ASSERT_EQ(d.generation, 1u);
  }
  EXPECT_STREQ(ReasonName(Reason::kManuallyResolved), "manually_resolved");
  EXPECT_EQ(in.status, IncidentStatus::kResolved);
  EXPECT_EQ(in.last_seen_at, At(59));
  EXPECT_EQ(in.event_count, events + 58);

  Decision d = Evaluate(in, Obs(60, Health::kHealthy), policy);
  EXPECT_EQ(d.kind, DecisionKind::kIgnore);
  EXPECT_EQ(d.reason, Reason::kHoldReleased);
  EXPECT_TRUE(d.changed);  // the hold's end is written
  EXPECT_FALSE(in.held);

  d = Evaluate(in, Obs(61, Health::kUnhealthy), policy);
  EXPECT_EQ(d.kind, DecisionKind::kNotify);
  EXPECT_EQ(d.reason, Reason::kOpen);
  EXPECT_EQ(d.generation, 2u);
}

TEST(ResolveByHandTest, ABoundedHoldEndsAtItsBoundEvenIfNeverHealthy) {
  Incident in;
  const Policy policy = TestPolicy();
  Evaluate(in, Obs(0, Health::kUnhealthy), policy);
  ResolveByHand(in, At(1), minutes(30));
  EXPECT_EQ(in.held_until, At(31));
  EXPECT_EQ(Evaluate(in, Obs(30, Health::kUnhealthy), policy).kind, DecisionKind::kUpdateOnly);
  const Decision d = Evaluate(in, Obs(31, Health::kUnhealthy), policy);
  EXPECT_EQ(d.kind, DecisionKind::kNotify);
  EXPECT_EQ(d.generation, 2u);
  EXPECT_FALSE(in.held);
  EXPECT_FALSE(in.held_until.has_value());
}

TEST(ResolveByHandTest, ABoundedHoldStillEndsAtTheFirstHealthyObservation) {
  Incident in;
  const Policy policy = TestPolicy();
  Evaluate(in, Obs(0, Health::kUnhealthy), policy);
  ResolveByHand(in, At(1), minutes(30));
  EXPECT_EQ(Evaluate(in, Obs(2, Health::kHealthy), policy).reason, Reason::kHoldReleased);
  EXPECT_EQ(Evaluate(in, Obs(3, Health::kUnhealthy), policy).kind, DecisionKind::kNotify);
}

TEST(ResolveByHandTest, UnknownPollsNeitherReleaseNorChangeAHold) {
  Incident in;
  const Policy policy = TestPolicy();
  Evaluate(in, Obs(0, Health::kUnhealthy), policy);
  ResolveByHand(in, At(1));
  const uint64_t version = in.version;
  EXPECT_EQ(Evaluate(in, Obs(2, Health::kUnknown), policy).kind, DecisionKind::kUnknown);
  EXPECT_TRUE(in.held);
  EXPECT_EQ(in.version, version);
  EXPECT_EQ(Evaluate(in, Obs(3, Health::kUnhealthy), policy).kind, DecisionKind::kUpdateOnly);
}

TEST(ResolveByHandTest, NothingOpenChangesNothing) {
  Incident in;
  const Decision d = ResolveByHand(in, At(5));
  EXPECT_FALSE(d.changed);
  EXPECT_FALSE(d.transition.has_value());
  EXPECT_EQ(in.version, 0u);
}

}  // namespace
}  // namespace quell::core
