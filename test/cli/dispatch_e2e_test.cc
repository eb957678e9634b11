// `quell dispatch` end to end: quell-sim in process, `quell poll-once` and `quell dispatch` as
// child processes on a real SQLite file, every channel type against its loopback stand-in
// (webhook, Slack, Twilio, PagerDuty) and a real SMTP server with STARTTLS.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "discord_receiver.h"
#include "google_chat_receiver.h"
#include "mattermost_receiver.h"
#include "ntfy_receiver.h"
#include "pagerduty_receiver.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "run_process.h"
#include "slack_receiver.h"
#include "smtp_sink.h"
#include "teams_receiver.h"
#include "telegram_receiver.h"
#include "test_paths.h"
#include "twilio_receiver.h"
#include "webhook_receiver.h"

namespace quell {
namespace dispatch_e2e_test {

using nlohmann::json;
using testing::Fault;
using Clock = std::chrono::steady_clock;

constexpr const char* kApiKey = "ifr_pk_proj_e2e_0123456789abcdef";
constexpr const char* kHookSecret = "whsec-e2e-4c1f9a";
constexpr const char* kSlackToken = "xoxb-e2e-token-77";
constexpr const char* kTwilioSid = "AC0123456789abcdef0123456789abcdef";
constexpr const char* kTwilioToken = "twilio-e2e-token-55";
constexpr const char* kPdKey = "pd-routing-e2e-0011";
constexpr const char* kKey = "acme:checkout:grp_e2e";

// Sets a variable every child inherits; nothing in this process reads the environment.
void SetEnv(const char* name, const std::string& value) {
  setenv(name, value.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
}

using testing::Child;
using testing::WaitFor;

class DispatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::SimOptions options;
    options.scenario = json::parse(R"({"groups": [{"id": "grp_e2e", "title": "Checkout failed",
        "tags": {"tenant": "acme", "agent_stage": "checkout"}, "events": 3}]})");
    sim_ = std::make_unique<sim::SimServer>(std::move(options));
    auto port = sim_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    admin_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
    SetEnv("INFRAI_BASE_URL", "http://127.0.0.1:" + std::to_string(*port));
    SetEnv("INFRAI_API_KEY", kApiKey);
    SetEnv("QUELL_STORE", "sqlite:" + (dir_ / "quell.db").string());
    SetEnv("HOOK_SECRET", kHookSecret);
    SetEnv("SLACK_TOKEN", kSlackToken);
    SetEnv("TWILIO_TOKEN", kTwilioToken);
    SetEnv("PD_KEY", kPdKey);
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  // A config polling the sim's error groups (one poll of health resolves) and routing them to
  // `channels`; `extra` is more top-level YAML.
  std::string WriteConfig(const std::string& channels, const std::string& routes,
                          const std::string& extra = "") {
    const auto path = dir_ / "quell.yaml";
    std::ofstream(path) << "store: ${QUELL_STORE}\n"
                        << testing::kInfraiSection
                        << "defaults: {healthy_polls_to_close: 1, channels: [" << routes << "]}\n"
                        << "conditions:\n  - {name: agent-errors, type: error_groups}\n"
                        << "channels:\n"
                        << channels << extra;
    config_ = path.string();
    return config_;
  }

  // Runs quell with the config written last; no secret may reach its output.
  testing::ProcessResult Quell(std::vector<std::string> args) {
    args.insert(args.begin(), testing::QuellBinary());
    auto result = testing::RunProcess(args);
    for (const char* secret : {kApiKey, kHookSecret, kSlackToken, kTwilioToken, kPdKey}) {
      EXPECT_EQ(result.out.find(secret), std::string::npos) << "a secret reached stdout";
      EXPECT_EQ(result.err.find(secret), std::string::npos) << "a secret reached stderr";
    }
    return result;
  }

  void Poll(const std::string& expected_decision) {
    auto r = Quell({"poll-once", "-c", config_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"decision\":\"" + expected_decision + "\""), std::string::npos) << r.out;
  }

  testing::ProcessResult DispatchOnce() { return Quell({"dispatch", "-c", config_, "--once"}); }

  // `quell dispatch --once` again and again until `done` (at most `limit`); returns the runs.
  std::vector<testing::ProcessResult> DispatchUntil(const std::function<bool()>& done,
                                                    std::chrono::milliseconds limit) {
    std::vector<testing::ProcessResult> runs;
    WaitFor(
        [&] {
          runs.push_back(DispatchOnce());
          return done();
        },
        limit);
    return runs;
  }

  std::vector<json> Outbox(const std::string& status = "") {
    std::vector<std::string> args = {"outbox", "list",    "--format",
                                     "jsonl",  "--store", "sqlite:" + (dir_ / "quell.db").string()};
    if (!status.empty()) {
      args.emplace_back("--status");
      args.push_back(status);
    }
    auto r = Quell(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<json> rows;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
    return rows;
  }

  // The status of the one outbox row on `channel` for `transition`; empty when none.
  std::string RowStatus(const std::string& channel, const std::string& transition = "open") {
    for (const json& row : Outbox()) {
      if (row["channel"] == channel && row["transition"] == transition) return row["status"];
    }
    return "";
  }

  void ResolveGroup() {
    auto r = admin_->Post("/_sim/groups/grp_e2e/resolve", "{}", "application/json");
    ASSERT_TRUE(r && r->status == 200);
  }

  static std::string Webhook(const std::string& name, const testing::WebhookReceiver& receiver,
                             const std::string& more = "") {
    return "  - {name: " + name + ", type: webhook, url: \"" + receiver.Url() +
           "\", secret_env: HOOK_SECRET, timeout: 1s, initial_backoff: 100ms, " +
           "max_backoff: 200ms" + more + "}\n";
  }

  testing::ScratchDir dir_{"quell-dispatch"};
  std::string config_;
  std::unique_ptr<sim::SimServer> sim_;
  std::unique_ptr<httplib::Client> admin_;
};

TEST_F(DispatchTest, EveryChannelTypeGetsTheOpenThenTheResolve) {
  QUELL_REQUIRE_SMTP_SINK();
  auto sink = testing::SmtpSink::Start();
  ASSERT_TRUE(sink.ok()) << sink.error().message;
  testing::WebhookReceiver hook(kHookSecret);
  testing::SlackReceiver slack(kSlackToken);
  testing::TwilioReceiver twilio(kTwilioSid, kTwilioToken);
  testing::PagerDutyReceiver pagerduty(kPdKey);
  const std::string timing = "timeout: 1s, initial_backoff: 100ms";
  WriteConfig(
      Webhook("hook", hook) + "  - {name: chat, type: slack, bot_token_env: SLACK_TOKEN, " +
          "channel: C42, api_url: \"" + slack.ApiBaseUrl() + "\", " + timing + "}\n" +
          "  - {name: phone, type: sms, base_url: \"" + twilio.BaseUrl() + "\", account_sid: " +
          kTwilioSid + ", auth_token_env: TWILIO_TOKEN, from: \"+15550001\", to: \"+15550002\", " +
          // The resolve follows the open within seconds: no pacing interval here.
          "min_interval: 0s, " + timing + "}\n" + "  - {name: pager, type: pagerduty, url: \"" +
          pagerduty.BaseUrl() + "\", routing_key_env: PD_KEY, " + timing + "}\n" +
          "  - {name: mail, type: email, url: \"" + (*sink)->url() + "\", ca_file: \"" +
          (*sink)->ca_file() + "\", from: quell@example.com, to: [oncall@example.com], " + timing +
          "}\n",
      "hook, chat, phone, pager, mail");

  Poll("notify");
  auto r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("5 sent"), std::string::npos) << r.err;
  for (const char* channel : {"hook", "chat", "phone", "pager", "mail"}) {
    EXPECT_EQ(RowStatus(channel), "sent") << channel;
  }
  ASSERT_EQ(hook.Requests().size(), 1U);
  EXPECT_TRUE(hook.Requests()[0].authorized);  // the signature verified
  EXPECT_NE(hook.Requests()[0].body.find(kKey), std::string::npos) << hook.Requests()[0].body;
  ASSERT_EQ(slack.Messages().size(), 1U);
  const std::string open_ts = slack.Messages()[0].ts;
  EXPECT_EQ(slack.Messages()[0].channel, "C42");
  ASSERT_EQ(twilio.Messages().size(), 1U);
  EXPECT_EQ(twilio.Messages()[0].to, "+15550002");
  ASSERT_EQ(pagerduty.Events().size(), 1U);
  EXPECT_EQ(pagerduty.Events()[0].event_action, "trigger");
  const auto mails = (*sink)->Received();
  ASSERT_EQ(mails.size(), 1U);
  EXPECT_NE(mails[0].envelope.find("tls yes"), std::string::npos) << mails[0].envelope;
  const std::string message_id = mails[0].Header("Message-ID");
  EXPECT_FALSE(message_id.empty());

  ResolveGroup();
  Poll("resolve");
  r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("5 sent"), std::string::npos) << r.err;
  for (const char* channel : {"hook", "chat", "phone", "pager", "mail"}) {
    EXPECT_EQ(RowStatus(channel, "resolve"), "sent") << channel;
  }
  EXPECT_EQ(hook.DeliveredKeys().size(), 2U);
  // The resolve is tied to the open: Slack edits the open message or replies in its thread.
  bool threaded = false;
  for (const testing::SlackMessage& message : slack.Messages()) {
    threaded =
        threaded || message.thread_ts == open_ts || (message.ts == open_ts && message.updates > 0);
  }
  EXPECT_TRUE(threaded);
  EXPECT_EQ(twilio.Messages().size(), 2U);
  ASSERT_EQ(pagerduty.Events().size(), 2U);
  EXPECT_EQ(pagerduty.Events()[1].event_action, "resolve");
  EXPECT_EQ(pagerduty.Events()[1].dedup_key, pagerduty.Events()[0].dedup_key);
  ASSERT_EQ(pagerduty.Alerts().size(), 1U);
  EXPECT_EQ(pagerduty.Alerts().begin()->second, "resolved");
  const auto all_mail = (*sink)->Received();
  ASSERT_EQ(all_mail.size(), 2U);
  EXPECT_EQ(all_mail[1].Header("In-Reply-To"), message_id);

  // Nothing is left to send: another run claims nothing.
  r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(hook.Requests().size(), 2U);
}

// Teams, Discord and Mattermost: the open with the key, then the resolve after it,
// through `quell dispatch` against each provider's stand-in; the URLs (the credentials) by
// url_env, inline "${VAR}" and url_file, and never in an outbox column.
constexpr const char* kTeamsSig = "e2eTeamsSignature0123456789";
constexpr const char* kDiscordToken = "e2eDiscordToken_0123456789abcdefghij";
constexpr const char* kMattermostKey = "e2emattermostkey0123456789";

TEST_F(DispatchTest, TeamsDiscordAndMattermostGetTheOpenThenTheResolve) {
  testing::TeamsReceiver teams(kTeamsSig);
  testing::DiscordReceiver discord("1111111111111111111", kDiscordToken);
  testing::MattermostReceiver mattermost(kMattermostKey);
  SetEnv("TEAMS_URL", teams.Url());
  SetEnv("DISCORD_URL", discord.WebhookUrl());
  std::ofstream(dir_ / "mm.url") << mattermost.HookUrl() << "\n";
  const std::string timing = "timeout: 1s, initial_backoff: 100ms, max_backoff: 200ms";
  WriteConfig("  - {name: ms, type: teams, url_env: TEAMS_URL, " + timing + "}\n" +
                  "  - {name: dc, type: discord, url: \"${DISCORD_URL}\", " + timing + "}\n" +
                  "  - {name: mm, type: mattermost, url_file: mm.url, " + timing + "}\n",
              "ms, dc, mm");
  Poll("notify");
  auto r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("3 sent"), std::string::npos) << r.err;
  ASSERT_EQ(teams.Cards().size(), 1U);
  EXPECT_EQ(teams.Cards()[0].facts.at("Key"), kKey);
  EXPECT_EQ(teams.Cards()[0].facts.at("Transition"), "open");
  ASSERT_EQ(discord.Messages().size(), 1U);
  EXPECT_NE(discord.Messages()[0].content.find(kKey), std::string::npos);
  const std::string open_id = discord.Messages()[0].id;
  ASSERT_EQ(mattermost.Posts().size(), 1U);
  EXPECT_EQ(mattermost.Posts()[0].props.at("quell_key"), kKey);
  EXPECT_EQ(mattermost.Posts()[0].props.at("quell_transition"), "open");
  for (const json& row : Outbox()) {
    if (row["channel"] == "dc") {
      EXPECT_EQ(row["remote_message_id"], open_id);
    }
  }

  ResolveGroup();
  Poll("resolve");
  r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("3 sent"), std::string::npos) << r.err;
  for (const char* channel : {"ms", "dc", "mm"}) {
    EXPECT_EQ(RowStatus(channel, "resolve"), "sent") << channel;
  }
  ASSERT_EQ(teams.Cards().size(), 2U);
  EXPECT_EQ(teams.Cards()[1].facts.at("Transition"), "resolve");
  ASSERT_EQ(discord.Messages().size(), 2U);
  EXPECT_NE(discord.Messages()[1].footer.find("follows message " + open_id), std::string::npos)
      << discord.Messages()[1].footer;
  ASSERT_EQ(mattermost.Posts().size(), 2U);
  EXPECT_EQ(mattermost.Posts()[1].props.at("quell_transition"), "resolve");
  EXPECT_TRUE(teams.FailedRuns().empty());
}

// A hung Discord request is retried: Discord has no idempotency key, so that is a second
// message (said plainly in docs/channels.md); the token reaches no output and no outbox column.
TEST_F(DispatchTest, AHungDiscordRequestIsRetriedAsASecondMessageWithoutLeakingTheToken) {
  testing::DiscordReceiver discord("1111111111111111111", kDiscordToken);
  SetEnv("DISCORD_URL", discord.WebhookUrl());
  WriteConfig(
      "  - {name: dc, type: discord, url_env: DISCORD_URL, timeout: 1s, "
      "initial_backoff: 100ms, max_backoff: 200ms}\n",
      "dc");
  discord.FailNext(Fault::kHang);
  Poll("notify");
  const auto runs =
      DispatchUntil([&] { return RowStatus("dc") == "sent"; }, std::chrono::seconds(10));
  EXPECT_EQ(RowStatus("dc"), "sent");
  EXPECT_NE(runs[0].err.find("1 retried"), std::string::npos) << runs[0].err;
  for (const auto& run : runs) {
    EXPECT_EQ(run.err.find(kDiscordToken), std::string::npos) << run.err;
    EXPECT_EQ(run.out.find(kDiscordToken), std::string::npos) << run.out;
  }
  ASSERT_EQ(discord.Messages().size(), 2U);
  EXPECT_EQ(discord.Messages()[0].footer, discord.Messages()[1].footer);
  const std::vector<json> rows = Outbox();
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0]["remote_message_id"], discord.Messages()[1].id);
  EXPECT_EQ(rows[0].dump().find(kDiscordToken), std::string::npos) << rows[0].dump();
  discord.ReleaseHung();
}

TEST_F(DispatchTest, AHungWebhookIsRetriedWithTheSameKeyAndDeliveredOnce) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(Webhook("hook", hook), "hook");
  hook.FailNext(Fault::kHang);
  Poll("notify");
  const auto runs =
      DispatchUntil([&] { return RowStatus("hook") == "sent"; }, std::chrono::seconds(10));
  EXPECT_EQ(RowStatus("hook"), "sent");
  EXPECT_NE(runs[0].err.find("1 retried"), std::string::npos) << runs[0].err;
  const auto requests = hook.Requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_FALSE(requests[0].idempotency_key.empty());
  EXPECT_EQ(requests[1].idempotency_key, requests[0].idempotency_key);
  EXPECT_TRUE(requests[1].duplicate);
  EXPECT_EQ(hook.DeliveredKeys().size(), 1U);
  hook.ReleaseHung();
}

TEST_F(DispatchTest, A500AndA429AreRetriedUntilTheyGoThrough) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(Webhook("hook", hook), "hook");
  hook.FailNext(Fault::kStatus500);
  Poll("notify");
  DispatchUntil([&] { return RowStatus("hook") == "sent"; }, std::chrono::seconds(10));
  EXPECT_EQ(RowStatus("hook"), "sent");
  ASSERT_EQ(hook.Requests().size(), 2U);
  EXPECT_EQ(hook.AcceptedCount(), 1U);

  // The resolve meets a 429 asking for one second: the next attempt waits for it.
  hook.SetRetryAfter("1");
  hook.FailNext(Fault::kStatus429);
  ResolveGroup();
  Poll("resolve");
  const auto started = Clock::now();
  DispatchUntil([&] { return RowStatus("hook", "resolve") == "sent"; }, std::chrono::seconds(10));
  EXPECT_EQ(RowStatus("hook", "resolve"), "sent");
  EXPECT_GE(Clock::now() - started, std::chrono::milliseconds(900));
  const auto requests = hook.Requests();
  ASSERT_EQ(requests.size(), 4U);
  EXPECT_EQ(requests[3].idempotency_key, requests[2].idempotency_key);
  EXPECT_NE(requests[2].idempotency_key, requests[0].idempotency_key);
  EXPECT_EQ(hook.DeliveredKeys().size(), 2U);
}

// Throttled answers are timed by dispatch.throttle_budget, not counted against max_attempts:
// three 429s outlast an attempt limit of two and the open still goes through, once; a row
// throttled for longer than the budget dies saying so.
TEST_F(DispatchTest, A429StormOutlastsTheAttemptLimitButNotTheThrottleBudget) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(Webhook("hook", hook, ", max_attempts: 2"), "hook",
              "dispatch: {throttle_budget: 4s}\n");
  hook.SetRetryAfter("1");
  hook.FailNext(Fault::kStatus429, 3);
  Poll("notify");
  DispatchUntil([&] { return RowStatus("hook") == "sent"; }, std::chrono::seconds(20));
  EXPECT_EQ(RowStatus("hook"), "sent");
  auto requests = hook.Requests();
  ASSERT_EQ(requests.size(), 4U);
  for (const auto& request : requests)
    EXPECT_EQ(request.idempotency_key, requests[0].idempotency_key);
  EXPECT_EQ(hook.AcceptedCount(), 1U);
  EXPECT_EQ(Outbox("sent").at(0)["attempts"], 1);

  hook.FailNext(Fault::kStatus429, 1000);
  ResolveGroup();
  Poll("resolve");
  DispatchUntil([&] { return RowStatus("hook", "resolve") == "dead"; }, std::chrono::seconds(20));
  const auto dead = Outbox("dead");
  ASSERT_EQ(dead.size(), 1U);
  const std::string error = dead[0]["last_error"];
  EXPECT_NE(error.find("HTTP 429"), std::string::npos) << error;
  EXPECT_NE(error.find("budget of 4s exhausted"), std::string::npos) << error;
  EXPECT_GE(hook.Requests().size(), 4U + 3U);  // Retry-After: 1 honoured through the budget
}

TEST_F(DispatchTest, AKilledDispatchersRowIsSentAgainAfterItsLeaseWithTheSameKey) {
  testing::WebhookReceiver hook(kHookSecret);
  // A long channel timeout, so the send is surely still in flight when the dispatcher dies.
  WriteConfig("  - {name: hook, type: webhook, url: \"" + hook.Url() +
                  "\", secret_env: HOOK_SECRET, timeout: 10s}\n",
              "hook", "dispatch: {lease: 2s, idle_interval: 100ms}\n");
  hook.FailNext(Fault::kHang);
  Poll("notify");
  Child dispatcher({testing::QuellBinary(), "dispatch", "-c", config_, "--owner", "doomed"},
                   dir_ / "dispatch.log");
  ASSERT_TRUE(dispatcher.running());
  ASSERT_TRUE(WaitFor([&] { return !hook.Requests().empty(); }, std::chrono::seconds(10)));
  const int status = dispatcher.Signal(SIGKILL);
  EXPECT_TRUE(WIFSIGNALED(status));
  const auto killed_at = Clock::now();

  // The dead dispatcher's lease still holds the row: nobody sends it yet.
  auto rows = Outbox();
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0]["status"], "in_flight");
  EXPECT_EQ(rows[0]["lease_owner"], "doomed");
  auto r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (Clock::now() - killed_at < std::chrono::milliseconds(1500)) {
    EXPECT_EQ(hook.Requests().size(), 1U);
  }

  DispatchUntil([&] { return RowStatus("hook") == "sent"; }, std::chrono::seconds(10));
  EXPECT_EQ(RowStatus("hook"), "sent");
  const auto requests = hook.Requests();
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[1].idempotency_key, requests[0].idempotency_key);
  EXPECT_EQ(hook.DeliveredKeys().size(), 1U);
  hook.ReleaseHung();
}

TEST_F(DispatchTest, ExhaustedAttemptsGoDeadAndTheDeadLetterChannelHearsOfIt) {
  testing::WebhookReceiver flaky(kHookSecret);
  testing::WebhookReceiver dead_letter(kHookSecret);
  WriteConfig(Webhook("flaky", flaky, ", max_attempts: 2") + Webhook("ops", dead_letter), "flaky",
              "dispatch: {dead_letter: ops, dead_letter_interval: 1s}\n");
  flaky.FailNext(Fault::kStatus500, 100);
  Poll("notify");
  const auto runs =
      DispatchUntil([&] { return RowStatus("flaky") == "dead"; }, std::chrono::seconds(10));
  EXPECT_EQ(runs.back().exit_code, 1) << runs.back().err;  // --once reports a dead row
  EXPECT_NE(runs.back().err.find("1 dead"), std::string::npos) << runs.back().err;
  EXPECT_EQ(flaky.Requests().size(), 2U);
  const auto dead = Outbox("dead");
  ASSERT_EQ(dead.size(), 1U);
  EXPECT_EQ(dead[0]["key"], kKey);
  EXPECT_EQ(dead[0]["attempts"], 2);
  EXPECT_NE(dead[0]["last_error"].get<std::string>().find("500"), std::string::npos)
      << dead[0].dump();
  // The notice goes at the end of its 1s window, as a message of its own kind.
  DispatchUntil([&] { return !dead_letter.Requests().empty(); }, std::chrono::seconds(10));
  ASSERT_EQ(dead_letter.Requests().size(), 1U);
  EXPECT_TRUE(dead_letter.Requests()[0].authorized);
  const json notice = json::parse(dead_letter.Requests()[0].body);
  EXPECT_EQ(notice["kind"], "dead_letter");
  EXPECT_FALSE(notice.contains("transition")) << notice.dump();
  EXPECT_FALSE(notice.contains("key")) << notice.dump();
  ASSERT_EQ(notice["dead_letter"]["count"], 1) << notice.dump();
  EXPECT_EQ(notice["dead_letter"]["rows"][0]["key"], kKey);
  EXPECT_EQ(notice["dead_letter"]["rows"][0]["attempts"], 2);
}

TEST_F(DispatchTest, APermanentRejectionGoesDeadAtOnce) {
  testing::TwilioReceiver twilio(kTwilioSid, kTwilioToken);
  testing::WebhookReceiver dead_letter(kHookSecret);
  WriteConfig("  - {name: phone, type: sms, base_url: \"" + twilio.BaseUrl() +
                  "\", account_sid: " + kTwilioSid +
                  ", auth_token_env: TWILIO_TOKEN, from: \"+15550001\", to: \"+15550002\", "
                  "timeout: 1s, initial_backoff: 100ms}\n" +
                  Webhook("ops", dead_letter),
              "phone", "dispatch: {dead_letter: ops, dead_letter_interval: 1s}\n");
  twilio.RejectNext(21211, "The 'To' number is not a valid phone number.", 400);
  Poll("notify");
  auto r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto dead = Outbox("dead");
  ASSERT_EQ(dead.size(), 1U);
  EXPECT_EQ(dead[0]["attempts"], 1);
  EXPECT_EQ(twilio.Requests().size(), 1U);
  EXPECT_TRUE(twilio.Messages().empty());
  DispatchUntil([&] { return !dead_letter.Requests().empty(); }, std::chrono::seconds(10));
  ASSERT_EQ(dead_letter.Requests().size(), 1U);
  EXPECT_NE(dead_letter.Requests()[0].body.find(kKey), std::string::npos);
}

TEST_F(DispatchTest, ShadowModeRecordsRowsButSendsNothing) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(Webhook("hook", hook), "hook", "shadow: true\n");
  Poll("notify");
  auto rows = Outbox();
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0]["status"], "shadow");
  auto r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ResolveGroup();
  Poll("resolve");
  r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Outbox("shadow").size(), 2U);
  EXPECT_TRUE(hook.Requests().empty());
}

// "HH:MM" of the current UTC time shifted by `minutes`, wrapped to the day.
std::string UtcClock(int minutes) {
  const auto now = std::chrono::floor<std::chrono::minutes>(std::chrono::system_clock::now());
  const auto day = std::chrono::floor<std::chrono::days>(now);
  const long of_day = ((now - day).count() + minutes + 24 * 60) % (24 * 60);
  char text[8];
  std::snprintf(text, sizeof text, "%02ld:%02ld", of_day / 60, of_day % 60);
  return text;
}

TEST_F(DispatchTest, QuietHoursDeferAnSmsButACriticalOneGoesOut) {
  testing::TwilioReceiver twilio(kTwilioSid, kTwilioToken);
  const std::string quiet_end = UtcClock(60);
  const std::string quiet =
      "quiet_hours: {start: \"" + UtcClock(-60) + "\", end: \"" + quiet_end + "\", time_zone: UTC}";
  const std::string sms =
      "  - {name: phone, type: sms, base_url: \"" + twilio.BaseUrl() +
      "\", account_sid: " + kTwilioSid +
      ", auth_token_env: TWILIO_TOKEN, from: \"+15550001\", to: \"+15550002\"," + " timeout: 1s, " +
      quiet + "}\n";
  WriteConfig(sms, "phone");
  Poll("notify");
  auto r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 deferred"), std::string::npos) << r.err;
  EXPECT_TRUE(twilio.Requests().empty());
  const auto pending = Outbox("pending");
  ASSERT_EQ(pending.size(), 1U);
  EXPECT_EQ(pending[0]["attempts"], 0);
  EXPECT_NE(pending[0]["last_error"].get<std::string>().find("quiet hours until " + quiet_end),
            std::string::npos)
      << pending[0].dump();

  // The same outage from a critical condition is sent through quiet hours.
  std::filesystem::remove(dir_ / "quell.db");
  std::ofstream(config_, std::ios::trunc)
      << "store: ${QUELL_STORE}\ninfrai:\n  base_url: ${INFRAI_BASE_URL}\n"
      << "conditions:\n  - {name: agent-errors, type: error_groups, severity: critical, "
      << "channels: [phone]}\nchannels:\n"
      << sms;
  Poll("notify");
  r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(twilio.Messages().size(), 1U);
}

TEST_F(DispatchTest, ATenantsNotificationsPastItsBudgetFoldIntoOneDigest) {
  testing::WebhookReceiver hook(kHookSecret);
  for (const char* id : {"grp_b", "grp_c"}) {
    const std::string body = std::string(R"({"id": ")") + id +
                             R"(", "title": "Refund failed", "tags": {"tenant": "acme",)" +
                             R"( "agent_stage": "refund"}, "events": 2})";
    auto added = admin_->Post("/_sim/groups", body, "application/json");
    ASSERT_TRUE(added && added->status == 200) << (added ? added->body : "no answer");
  }
  WriteConfig(Webhook("hook", hook), "hook", "dispatch: {tenant_budget: {per_hour: 1}}\n");
  Poll("notify");
  EXPECT_EQ(Outbox("pending").size(), 2U);  // one open within the budget + the digest
  const auto folded = Outbox("folded");
  EXPECT_EQ(folded.size(), 2U);
  auto r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(hook.DeliveredKeys().size(), 1U);  // the digest waits for the end of the hour
  bool digest_waits = false;
  for (const json& row : Outbox("pending")) {
    if (row["key"] == "{digest}:acme") digest_waits = true;
  }
  EXPECT_TRUE(digest_waits);
}

TEST_F(DispatchTest, BadChannelConfigExitsTwoWithWhereAndWhatAndNoSecret) {
  testing::WebhookReceiver hook(kHookSecret);
  WriteConfig(Webhook("hook", hook) + "  - {name: fax, type: fax, url: \"http://127.0.0.1:9\"}\n",
              "hook");
  auto r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("quell.yaml:10:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"fax\""), std::string::npos) << r.err;

  WriteConfig("  - name: hook\n    type: webhook\n    url: \"" + hook.Url() +
                  "\"\n    secret: " + kHookSecret + "\n",
              "hook");
  r = DispatchOnce();  // Quell() checks the secret is not echoed
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("quell.yaml:12:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("secret_env"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "quell.db"));

  // An unset secret variable: the poller routes without it, the dispatcher refuses to start.
  WriteConfig(Webhook("hook", hook), "hook");
  unsetenv("HOOK_SECRET");  // NOLINT(concurrency-mt-unsafe)
  Poll("notify");
  r = DispatchOnce();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("quell.yaml:9:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("HOOK_SECRET is not set"), std::string::npos) << r.err;
  EXPECT_EQ(RowStatus("hook"), "pending");
  EXPECT_TRUE(hook.Requests().empty());
}

// Google Chat, ntfy and Telegram: the open and then the resolve reach each
// stand-in through `quell dispatch`, threaded where the provider threads; a hang on Google Chat
// is retried with the same requestId and stays one message; a hang on Telegram is retried
// (a second message, Telegram has no idempotency) and its token reaches neither the outbox
// nor quell's output.
TEST_F(DispatchTest, GoogleChatNtfyAndTelegramGetTheOpenThenTheResolve) {
  const std::string chat_key = "AIzaSyE2e-chat-key";
  const std::string chat_token = "e2e-chat-token-93";
  const std::string ntfy_token = "tk_e2e_ntfy_token_0001";
  const std::string tg_token = "7000000002:AAE2eTelegramTokenXyz";
  testing::GoogleChatReceiver chat(chat_key, chat_token);
  testing::NtfyReceiver ntfy(ntfy_token);
  testing::TelegramReceiver telegram(tg_token, "-1001234567890");
  SetEnv("GCHAT_URL", chat.WebhookUrl());
  SetEnv("NTFY_TOKEN", ntfy_token);
  SetEnv("TG_TOKEN", tg_token);
  const std::string timing = "timeout: 1s, initial_backoff: 100ms, max_backoff: 200ms";
  WriteConfig("  - {name: chat, type: google_chat, url_env: GCHAT_URL, " + timing + "}\n" +
                  "  - {name: phone, type: ntfy, url: \"" + ntfy.TopicUrl() +
                  "\", token_env: NTFY_TOKEN, " + timing + "}\n" +
                  "  - {name: tg, type: telegram, api_url: \"" + telegram.ApiUrl() +
                  "\", chat_id: \"-1001234567890\", token_env: TG_TOKEN, " + timing + "}\n",
              "chat, phone, tg");
  chat.FailNext(Fault::kHang);
  telegram.FailNext(Fault::kHang);
  Poll("notify");
  const auto runs = DispatchUntil(
      [&] {
        return RowStatus("chat") == "sent" && RowStatus("phone") == "sent" &&
               RowStatus("tg") == "sent";
      },
      std::chrono::seconds(15));
  for (const char* channel : {"chat", "phone", "tg"}) EXPECT_EQ(RowStatus(channel), "sent");
  for (const auto& run : runs) {
    for (const std::string& secret : {chat_key, chat_token, ntfy_token, tg_token}) {
      EXPECT_EQ(run.err.find(secret), std::string::npos) << run.err;
      EXPECT_EQ(run.out.find(secret), std::string::npos) << run.out;
    }
  }
  ASSERT_EQ(chat.Messages().size(), 1U);  // the hang's retry returned the same message
  EXPECT_EQ(chat.Requests().size(), 2U);
  EXPECT_NE(chat.Messages()[0].text.find(kKey), std::string::npos) << chat.Messages()[0].text;
  ASSERT_EQ(ntfy.Messages().size(), 1U);
  EXPECT_NE(ntfy.Messages()[0].title.find(kKey), std::string::npos) << ntfy.Messages()[0].title;
  ASSERT_EQ(telegram.Messages().size(), 2U);  // the hang's retry is a second message
  EXPECT_NE(telegram.Messages()[0].text.find(kKey), std::string::npos);
  chat.ReleaseHung();
  telegram.ReleaseHung();

  ResolveGroup();
  Poll("resolve");
  DispatchUntil(
      [&] {
        return RowStatus("chat", "resolve") == "sent" && RowStatus("phone", "resolve") == "sent" &&
               RowStatus("tg", "resolve") == "sent";
      },
      std::chrono::seconds(10));
  ASSERT_EQ(chat.Messages().size(), 2U);
  EXPECT_EQ(chat.Messages()[1].thread_name, chat.Messages()[0].thread_name);
  ASSERT_EQ(ntfy.Messages().size(), 2U);
  EXPECT_EQ(ntfy.Messages()[1].tags.at(0), "white_check_mark");
  ASSERT_EQ(telegram.Messages().size(), 3U);
  // The resolve replies to the message whose answer reached quell (the retry's).
  EXPECT_EQ(telegram.Messages()[2].reply_to, telegram.Messages()[1].message_id);
  for (const json& row : Outbox()) {
    const std::string text = row.dump();
    for (const std::string& secret : {chat_key, chat_token, ntfy_token, tg_token}) {
      EXPECT_EQ(text.find(secret), std::string::npos) << text;
    }
  }
}

}  // namespace dispatch_e2e_test
}  // namespace quell
