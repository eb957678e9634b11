// Sentry as a source, end to end (issue 34, item 1): `quell run` against the Sentry stand-in
// (test/support/sentry_server.h, from Sentry's API documentation) serving three unresolved
// issues two to a page, and a recording webhook receiver, both on loopback. Three incidents
// open, keyed support-agent:<id>, each message naming its title, culprit and count and linking
// the permalink; failed polls hold them and count toward the source's own incident; an issue
// gone from the list resolves after the healthy streak. And `quell config check` and
// `quell schema check` on Sentry's settings and answers.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "quell_run.h"
#include "run_process.h"
#include "sentry_server.h"
#include "test_paths.h"
#include "webhook_receiver.h"

namespace quell {
namespace run_sentry_e2e_test {

using nlohmann::json;
using std::chrono::seconds;
using testing::Events;
using testing::SetEnv;
using testing::WaitFor;

constexpr const char* kToken = "sntrys_eyJpYXQiOjE3MzAwMDAwMDB9_e2eTokenNeverLogged42";
constexpr const char* kHookSecret = "whsec-sentry-7a1b-33c9";

testing::SentryIssue Issue(const std::string& id, const std::string& title,
                           const std::string& culprit, uint64_t count) {
  testing::SentryIssue issue;
  issue.id = id;
  issue.short_id = "SUPPORT-AGENT-" + id.substr(id.size() - 2);
  issue.title = title;
  issue.culprit = culprit;
  issue.count = count;
  issue.tags = {{"tenant", "acme"}, {"agent_stage", "answer"}};
  return issue;
}

class RunSentryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetEnv("SENTRY_TOKEN", kToken);
    SetEnv("HOOK_SECRET", kHookSecret);
    store_ = "sqlite:" + (dir_ / "quell.db").string();
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }

  void WriteConfig(const std::string& sentry_url, const std::string& hook_url,
                   const std::string& sentry_section_extra = "") {
    std::ofstream(config_) << "store: " << store_ << "\n"
                           << "sentry:\n  base_url: " << sentry_url << "\n  org: acme\n"
                           << "  token_env: SENTRY_TOKEN\n  retry: {max_attempts: 1}\n"
                           << sentry_section_extra << "conditions:\n"
                           << "  - name: sentry-errors\n"
                           << "    type: sentry_issues\n"
                           << "    project: support-agent\n"
                           << "    query: \"is:unresolved\"\n"
                           << "    key: \"{project}:{id}\"\n"
                           << "    interval: 1s\n"
                           << "    healthy_polls_to_close: 3\n"
                           << "    channels: [hook]\n"
                           << "channels:\n"
                           << "  - {name: hook, type: webhook, url: \"" << hook_url
                           << "\", secret_env: HOOK_SECRET, timeout: 2s, initial_backoff: 100ms, "
                              "max_backoff: 200ms}\n"
                           << "log: {format: json, level: debug}\n"
                           << "http: {listen: \"127.0.0.1:0\"}\n";
  }

  static std::vector<json> BodiesAbout(const testing::WebhookReceiver& hook,
                                       const std::string& key) {
    std::vector<json> out;
    for (const auto& request : hook.Requests()) {
      if (!request.authorized || request.duplicate) continue;
      json body = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
      if (body.is_object() && body.value("key", "") == key) out.push_back(std::move(body));
    }
    return out;
  }
  static std::optional<json> WithTransition(const testing::WebhookReceiver& hook,
                                            const std::string& key, const std::string& transition) {
    for (const json& body : BodiesAbout(hook, key)) {
      if (body.value("transition", "") == transition) return body;
    }
    return std::nullopt;
  }
  // The poll decisions logged about `key` (the quiet ones at debug), in order: "notify",
  // "wait_for_health", ...
  std::vector<std::string> DecisionsAbout(const std::string& key) const {
    std::vector<std::string> out;
    for (const json& event : Events(log_, "poll.decision")) {
      if (event.value("incident_key", "") == key) out.push_back(event.value("decision", ""));
    }
    return out;
  }

  testing::ProcessResult Quell(std::vector<std::string> args) {
    args.insert(args.begin(), testing::QuellBinary());
    return testing::RunProcess(args);
  }

  testing::ScratchDir dir_{"quell-run-sentry"};
  std::string store_;
  std::string config_;
  std::filesystem::path log_;
};

TEST_F(RunSentryTest, ThreeIssuesOpenThreeIncidentsAndAResolvedOneClosesAfterTheStreak) {
  testing::SentryServer sentry(kToken, "acme");
  sentry.SetPageSize(2);
  const std::vector<testing::SentryIssue> issues = {
      Issue("4505123011", "TimeoutError: model call exceeded 30s", "agent.answer in call_model",
            1234),
      Issue("4505123012", "KeyError: 'ticket_id'", "agent.triage in route_ticket", 57),
      Issue("4505123013", "ValueError: empty retrieval context", "agent.retrieve in search", 8)};
  for (const auto& issue : issues) sentry.Put("support-agent", issue);
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(sentry.BaseUrl(), hook.Url());
  testing::QuellRun run(config_, log_);

  for (const auto& issue : issues) {
    const std::string key = "support-agent:" + issue.id;
    ASSERT_TRUE(WaitFor([&] { return WithTransition(hook, key, "open").has_value(); }, seconds(60)))
        << key << "\n"
        << testing::ReadFile(log_);
    const json open = *WithTransition(hook, key, "open");
    const std::string body = open["message"]["body"].get<std::string>();
    EXPECT_NE(body.find(issue.title), std::string::npos) << body;
    EXPECT_NE(body.find(issue.culprit), std::string::npos) << body;
    EXPECT_NE(body.find(std::to_string(issue.count)), std::string::npos) << body;
    EXPECT_NE(body.find("https://sentry.io/organizations/acme/issues/" + issue.id + "/"),
              std::string::npos)
        << "the permalink: " << body;
  }
  const std::vector<std::string> cursors = sentry.CursorsAsked();
  EXPECT_NE(std::find(cursors.begin(), cursors.end(), "0:2:0"), cursors.end())
      << "the second page, by the Link header's cursor";

  // Sentry failing: the polls hold every incident open and count toward the source's own.
  sentry.FailNext(testing::Fault::kStatus500, 4);
  ASSERT_TRUE(
      WaitFor([&] { return WithTransition(hook, "source:sentry issues", "open").has_value(); },
              seconds(60)))
      << testing::ReadFile(log_);
  for (const auto& issue : issues) {
    EXPECT_FALSE(WithTransition(hook, "support-agent:" + issue.id, "resolve").has_value());
  }

  // Resolved in Sentry: gone from the is:unresolved list, healthy, closed at the third poll.
  const std::string gone = "support-agent:" + issues[1].id;
  sentry.Remove(issues[1].id);
  ASSERT_TRUE(
      WaitFor([&] { return WithTransition(hook, gone, "resolve").has_value(); }, seconds(60)))
      << testing::ReadFile(log_);
  EXPECT_TRUE(WIFEXITED(run.Signal(SIGTERM))) << testing::ReadFile(log_);
  const std::vector<std::string> decisions = DecisionsAbout(gone);
  ASSERT_GE(decisions.size(), 3U);
  EXPECT_EQ(decisions.back(), "resolve");
  EXPECT_EQ(decisions[decisions.size() - 2], "wait_for_health");
  EXPECT_EQ(decisions[decisions.size() - 3], "wait_for_health");
  for (const size_t still : {size_t{0}, size_t{2}}) {
    EXPECT_FALSE(WithTransition(hook, "support-agent:" + issues[still].id, "resolve").has_value());
  }
  EXPECT_EQ(testing::ReadFile(log_).find(kToken), std::string::npos) << "the token was logged";
}

TEST_F(RunSentryTest, ConfigCheckRefusesASentryConditionWithoutTheSectionOrTheToken) {
  std::ofstream(config_)
      << "store: " << store_ << "\n"
      << "conditions:\n"
      << "  - {name: sentry-errors, type: sentry_issues, project: support-agent}\n";
  auto check = Quell({"config", "check", "-c", config_, "--offline"});
  EXPECT_NE(check.exit_code, 0);
  EXPECT_NE((check.out + check.err).find(config_ + ":3:"), std::string::npos) << check.out;
  EXPECT_NE((check.out + check.err)
                .find(": conditions[0].type: a sentry_issues condition needs a `sentry:` section"),
            std::string::npos)
      << check.out << check.err;

  WriteConfig("https://sentry.io", "http://127.0.0.1:9/hook");
  unsetenv("SENTRY_TOKEN");  // NOLINT(concurrency-mt-unsafe)
  check = Quell({"config", "check", "-c", config_, "--offline"});
  EXPECT_NE(check.exit_code, 0);
  EXPECT_NE((check.out + check.err).find("sentry.token_env: SENTRY_TOKEN is not set"),
            std::string::npos)
      << check.out << check.err;
  const auto run = Quell({"run", "-c", config_});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE((run.out + run.err).find("sentry.token_env: SENTRY_TOKEN is not set"),
            std::string::npos)
      << run.out << run.err;

  SetEnv("SENTRY_TOKEN", kToken);
  check = Quell({"config", "check", "-c", config_, "--offline"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

TEST_F(RunSentryTest, TheExampleConfigPassesConfigCheck) {
  const auto check =
      Quell({"config", "check", "-c", testing::SourcePath("examples/sentry.yaml"), "--offline"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok: 0 error-group, 1 sentry_issues, 0 metric and 0 push conditions"),
            std::string::npos)
      << check.out;
}

TEST_F(RunSentryTest, SchemaCheckReadsSentrysAnswersAndNamesDrift) {
  testing::SentryServer sentry(kToken, "acme");
  sentry.Put("support-agent", Issue("4505123011", "TimeoutError", "agent.answer", 3));
  WriteConfig(sentry.BaseUrl(), "http://127.0.0.1:9/hook");
  auto check = Quell({"schema", "check", "-c", config_});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("schema check: ok against " + sentry.BaseUrl() + " (1 Sentry condition"),
            std::string::npos)
      << check.out << check.err;

  sentry.Override("4505123011", "count", "3");  // a number where Sentry sends a string
  check = Quell({"schema", "check", "-c", config_});
  EXPECT_NE(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("drift: condition \"sentry-errors\": sentry: GET "), std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("issues[0].count: expected a string of digits, got 3"),
            std::string::npos)
      << check.out;
}

}  // namespace run_sentry_e2e_test
}  // namespace quell
