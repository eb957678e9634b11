// Sentry's answers as its API documentation shows them: the Link header's pages and the issue
// list's fields, and what drift in either does.
#include "quell/adapters/sentry/sentry_answers.h"

#include <gtest/gtest.h>

#include "quell/adapters/sentry/sentry_link.h"
#include "quell/core/text/time.h"

namespace quell::sentry {
namespace {

// The example of docs.sentry.io/api/pagination/, one line.
constexpr const char* kDocumentedLink =
    R"(<https://sentry.io/api/0/organizations/acme/issues/123456/events/?&cursor=0:0:1>; )"
    R"(rel="previous"; results="false"; cursor="0:0:1", )"
    R"(<https://sentry.io/api/0/organizations/acme/issues/123456/events/?&cursor=0:100:0>; )"
    R"(rel="next"; results="true"; cursor="0:100:0")";

TEST(SentryLinkTest, FollowsTheNextCursorWhileResultsIsTrue) {
  auto next = ParseNextPage(kDocumentedLink);
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_TRUE(next->more);
  EXPECT_EQ(next->cursor, "0:100:0");
}

TEST(SentryLinkTest, StopsAtResultsFalse) {
  auto next = ParseNextPage(
      R"(<https://sentry.io/api/0/projects/1/groups/?&cursor=1420837590:0:1>; rel="previous"; )"
      R"(results="true", <https://sentry.io/api/0/projects/1/groups/?&cursor=1420837533:0:0>; )"
      R"(rel="next"; results="false")");
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_FALSE(next->more);
}

TEST(SentryLinkTest, TakesTheCursorFromTheUrlWhenNoAttributeCarriesIt) {
  auto next = ParseNextPage(
      R"(<https://sentry.io/api/0/projects/1/groups/?&cursor=1420837533:0:0>; rel="next"; )"
      R"(results="true")");
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(next->cursor, "1420837533:0:0");
}

TEST(SentryLinkTest, ANextLinkWithoutResultsIsDrift) {
  auto next = ParseNextPage(R"(<https://sentry.io/x/?&cursor=0:100:0>; rel="next")");
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.error().code, core::ErrorCode::kCorrupt);
  EXPECT_NE(next.error().message.find("results"), std::string::npos) << next.error().message;
}

constexpr const char* kIssue =
    R"([{"id":"4505123001","shortId":"SUPPORT-AGENT-1","title":"TimeoutError: model call",)"
    R"("culprit":"agent.answer in call_model","permalink":"https://sentry.io/organizations/acme/issues/4505123001/",)"
    R"("level":"warning","status":"unresolved","count":"1234","userCount":3,)"
    R"("firstSeen":"2026-12-02T08:00:00.123456Z","lastSeen":"2026-12-02T08:59:00Z",)"
    R"("project":{"id":"2","name":"Support agent","slug":"support-agent"}}])";

TEST(SentryAnswersTest, ReadsAnIssueAsDocumented) {
  auto page = ParseIssuePage(kIssue, "GET issues");
  ASSERT_TRUE(page.ok()) << page.error().message;
  ASSERT_EQ(page->size(), 1U);
  const core::ErrorGroup& group = page->front();
  EXPECT_EQ(group.id, "4505123001");
  EXPECT_EQ(group.title, "TimeoutError: model call");
  EXPECT_EQ(group.level, "warning");
  EXPECT_EQ(group.count, 1234U);
  EXPECT_FALSE(group.resolved);
  EXPECT_EQ(core::FormatRfc3339(*group.first_seen), "2026-12-02T08:00:00.123456Z");
  EXPECT_EQ(core::FindLabel(group.fields, "project"), "support-agent");
  EXPECT_EQ(core::FindLabel(group.fields, "short_id"), "SUPPORT-AGENT-1");
  EXPECT_EQ(core::FindLabel(group.fields, "culprit"), "agent.answer in call_model");
  EXPECT_EQ(core::FindLabel(group.fields, "permalink"),
            "https://sentry.io/organizations/acme/issues/4505123001/");
}

TEST(SentryAnswersTest, ATitleThatIsNotUtf8IsReadWithReplacementCharacters) {
  std::string body = kIssue;
  body.replace(body.find("TimeoutError: model call"), 12, "Timeout\xE9rror\\ud83d");
  auto page = ParseIssuePage(body, "GET issues");
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_EQ(page->front().title, "Timeout\xEF\xBF\xBDrror\xEF\xBF\xBD: model call");
}

TEST(SentryAnswersTest, ACountSentAsANumberIsDriftNamingTheField) {
  std::string body = kIssue;
  body.replace(body.find(R"("1234")"), 6, "1234");
  auto page = ParseIssuePage(body, "GET issues");
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().code, core::ErrorCode::kCorrupt);
  EXPECT_NE(page.error().message.find("issues[0].count: expected a string of digits, got 1234"),
            std::string::npos)
      << page.error().message;
}

TEST(SentryAnswersTest, AMissingLastSeenIsDrift) {
  std::string body = kIssue;
  body.replace(body.find("lastSeen"), 8, "last_seen");
  auto page = ParseIssuePage(body, "GET issues");
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.error().message.find("issues[0].lastSeen: missing"), std::string::npos)
      << page.error().message;
}

TEST(SentryAnswersTest, ReadsTheLatestEventsTags) {
  auto event = ParseLatestEvent(
      R"({"eventID":"9fac2c","dateCreated":"2026-12-02T08:59:00Z","message":"",)"
      R"("metadata":{"type":"TimeoutError","value":"model call"},)"
      R"("tags":[{"key":"tenant","value":"acme"},{"key":"agent_stage","value":"answer","_meta":null}]})",
      "GET latest");
  ASSERT_TRUE(event.ok()) << event.error().message;
  EXPECT_EQ(event->event.event_id, "9fac2c");
  EXPECT_EQ(event->event.exception, "TimeoutError: model call");
  EXPECT_EQ(core::FindLabel(event->tags, "tenant"), "acme");
  EXPECT_EQ(core::FindLabel(event->tags, "agent_stage"), "answer");
}

TEST(SentryAnswersTest, A429KeepsSentrysWordsAndIsRetryable) {
  core::HttpResponse response;
  response.status = 429;
  response.body = R"({"detail":"You are attempting to use this endpoint too frequently"})";
  const core::Error error = StatusError(response, "GET issues");
  EXPECT_EQ(error.code, core::ErrorCode::kUnavailable);
  EXPECT_NE(error.message.find("HTTP 429: You are attempting"), std::string::npos) << error.message;
}

}  // namespace
}  // namespace quell::sentry
