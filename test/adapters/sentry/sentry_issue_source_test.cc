// The Sentry source against the stand-in on loopback (test/support/sentry_server.h), through
// libcurl and the retrying client a poll uses: pages by the Link header's cursor, the bearer
// token, 429 with Retry-After, tags looked up within max_enrich, and drift failing the walk.
#include "quell/adapters/sentry/sentry_issue_source.h"

#include <gtest/gtest.h>

#include <memory>

#include "fake_clock.h"
#include "quell/adapters/curl/curl_http_client.h"
#include "quell/adapters/sentry/sentry_schema_check.h"
#include "quell/app/budgeted_http_client.h"
#include "quell/app/retrying_http_client.h"
#include "sentry_server.h"

namespace quell::sentry {
namespace {

constexpr const char* kToken = "sntrys_eyJpYXQiOjE3MDAwMDAwMDB9_h42sTestTokenValue";

testing::SentryIssue Issue(const std::string& id, const std::string& title) {
  testing::SentryIssue issue;
  issue.id = id;
  issue.short_id = "SUPPORT-AGENT-" + id.substr(id.size() - 1);
  issue.title = title;
  issue.culprit = "agent.answer in call_model";
  issue.count = 10;
  issue.tags = {{"tenant", "acme"}, {"agent_stage", "answer"}};
  return issue;
}

class SentryIssueSourceTest : public ::testing::Test {
 protected:
  SentryIssueSourceTest()
      : server_(kToken, "acme"),
        clock_(core::ParseRfc3339("2026-12-02T09:00:00Z").value()),
        retrying_(curl_, clock_, Policy(), 7),
        budgeted_(retrying_, std::chrono::seconds(30)) {}

  static app::RetryPolicy Policy() {
    app::RetryPolicy policy;
    policy.max_attempts = 3;
    policy.max_retry_after = std::chrono::seconds(60);
    return policy;
  }

  std::unique_ptr<SentryIssueSource> Source(IssueQuery query, std::string token = kToken) {
    SentryOptions options;
    options.base_url = server_.BaseUrl();
    options.org = "acme";
    options.token = std::move(token);
    client_ = std::make_unique<SentryClient>(options, budgeted_);
    return std::make_unique<SentryIssueSource>(*client_, std::move(query));
  }

  static IssueQuery Project() {
    IssueQuery query;
    query.project = "support-agent";
    return query;
  }

  testing::SentryServer server_;
  curl::CurlHttpClient curl_;
  testing::FakeClock clock_;
  app::RetryingHttpClient retrying_;
  app::BudgetedHttpClient budgeted_;
  std::unique_ptr<SentryClient> client_;
};

TEST_F(SentryIssueSourceTest, WalksEveryPageByTheLinkHeadersCursor) {
  server_.SetPageSize(2);
  server_.Put("support-agent", Issue("4505123001", "A"));
  server_.Put("support-agent", Issue("4505123002", "B"));
  server_.Put("support-agent", Issue("4505123003", "C"));
  testing::SentryIssue resolved = Issue("4505123004", "D");
  resolved.status = "resolved";
  server_.Put("support-agent", resolved);
  server_.Put("other-project", Issue("4505123005", "E"));
  auto source = Source(Project());
  const core::GroupListing listing = source->List();
  ASSERT_TRUE(listing.complete) << listing.error.message;
  EXPECT_EQ(listing.pages, 2U);
  ASSERT_EQ(listing.groups.size(), 3U);
  EXPECT_EQ(listing.groups[2].title, "C");
  EXPECT_EQ(server_.CursorsAsked(), (std::vector<std::string>{"", "0:2:0"}));
  for (const auto& request : server_.Requests()) {
    EXPECT_EQ(core::FindHeader(request.headers, "Authorization"), std::string("Bearer ") + kToken);
  }
}

TEST_F(SentryIssueSourceTest, AMaxPagesBoundFailsTheWalkInsteadOfPagingOn) {
  server_.SetPageSize(1);
  server_.Put("support-agent", Issue("4505123001", "A"));
  server_.Put("support-agent", Issue("4505123002", "B"));
  IssueQuery query = Project();
  query.max_pages = 1;
  const core::GroupListing listing = Source(query)->List();
  EXPECT_FALSE(listing.complete);
  EXPECT_NE(listing.error.message.find("raise sentry.max_pages"), std::string::npos)
      << listing.error.message;
}

TEST_F(SentryIssueSourceTest, WaitsOutA429sRetryAfter) {
  server_.Put("support-agent", Issue("4505123001", "A"));
  server_.SetRetryAfter("7");
  server_.FailNext(testing::Fault::kStatus429);
  const core::GroupListing listing = Source(Project())->List();
  ASSERT_TRUE(listing.complete) << listing.error.message;
  EXPECT_EQ(listing.groups.size(), 1U);
  ASSERT_EQ(clock_.sleeps().size(), 1U);
  EXPECT_EQ(clock_.sleeps()[0], std::chrono::seconds(7));
}

TEST_F(SentryIssueSourceTest, ARefusedTokenFailsTheListingWithoutQuotingIt) {
  server_.Put("support-agent", Issue("4505123001", "A"));
  const core::GroupListing listing = Source(Project(), "sntrys_wrong_token_value_123456")->List();
  EXPECT_FALSE(listing.complete);
  EXPECT_EQ(listing.error.code, core::ErrorCode::kPermissionDenied);
  EXPECT_NE(listing.error.message.find("HTTP 401: Invalid token"), std::string::npos)
      << listing.error.message;
  EXPECT_EQ(listing.error.message.find("sntrys_"), std::string::npos) << listing.error.message;
}

TEST_F(SentryIssueSourceTest, SchemaDriftFailsTheListingNamingTheField) {
  server_.Put("support-agent", Issue("4505123001", "A"));
  server_.Override("4505123001", "count", "10");
  auto source = Source(Project());
  const core::GroupListing listing = source->List();
  EXPECT_FALSE(listing.complete);
  EXPECT_EQ(listing.error.code, core::ErrorCode::kCorrupt);
  EXPECT_NE(listing.error.message.find("issues[0].count: expected a string of digits"),
            std::string::npos)
      << listing.error.message;
  // The schema check reads the same answer the same way.
  const auto findings = CheckIssueSchema(*source, "sentry-errors",
                                         core::KeyTemplate::Parse("{project}:{id}").value());
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].kind, "drift");
}

TEST_F(SentryIssueSourceTest, LooksTagsUpAtMostMaxEnrichAPollAndHoldsTheRest) {
  server_.Put("support-agent", Issue("4505123001", "A"));
  server_.Put("support-agent", Issue("4505123002", "B"));
  server_.Put("support-agent", Issue("4505123003", "C"));
  IssueQuery query = Project();
  query.needs_tags = true;
  query.max_enrich = 2;
  auto source = Source(query);
  const core::GroupListing first = source->List();
  EXPECT_FALSE(first.complete) << "one issue still waits for its tags";
  EXPECT_NE(first.error.message.find("1 issue still wait"), std::string::npos)
      << first.error.message;
  ASSERT_EQ(first.groups.size(), 2U);
  EXPECT_EQ(core::FindLabel(first.groups[0].tags, "tenant"), "acme");
  const core::GroupListing second = source->List();
  ASSERT_TRUE(second.complete) << second.error.message;
  EXPECT_EQ(second.groups.size(), 3U);
  size_t lookups = 0;
  for (const auto& request : server_.Requests()) {
    if (request.path.ends_with("/events/latest/")) ++lookups;
  }
  EXPECT_EQ(lookups, 3U) << "each issue's tags looked up once";
}

TEST_F(SentryIssueSourceTest, DetailIsTheLatestEventOverTheListedIssue) {
  server_.Put("support-agent", Issue("4505123001", "A"));
  auto source = Source(Project());
  ASSERT_TRUE(source->List().complete);
  auto detail = source->Detail("4505123001");
  ASSERT_TRUE(detail.ok()) << detail.error().message;
  EXPECT_EQ(detail->group.count, 10U);
  EXPECT_EQ(core::FindLabel(detail->group.tags, "agent_stage"), "answer");
  ASSERT_EQ(detail->events.size(), 1U);
  EXPECT_EQ(source->Detail("999").error().code, core::ErrorCode::kNotFound);
}

}  // namespace
}  // namespace quell::sentry
