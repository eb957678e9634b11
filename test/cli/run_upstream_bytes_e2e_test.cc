// Bytes that are not UTF-8 in an upstream's error groups, through `quell run`: quell-sim in
// process serves one group's title and tenant in Latin-1 and another's title cut inside a UTF-16
// surrogate pair; the daemon (a child process on a real SQLite file) must keep polling, open both
// incidents, and send the webhook, Slack and e-mail messages and answer its API in valid UTF-8.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "quell/core/text/request_target.h"
#include "quell/sim/faults.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "slack_receiver.h"
#include "smtp_sink.h"
#include "webhook_receiver.h"

namespace run_upstream_bytes_e2e_test {
namespace {

using nlohmann::json;
using quell::core::IsUtf8;
using quell::testing::SetEnv;
using quell::testing::WaitFor;
using std::chrono::seconds;

constexpr const char* kApiKey = "ifr_pk_proj_bytes_0123456789abcdef";
constexpr const char* kHookSecret = "whsec-bytes-2b7e-91c4d0";
constexpr const char* kSlackToken = "xoxb-bytes-test";
constexpr const char* kToken = "tok-bytes-0123456789abcdef";
// What U+FFFD looks like in UTF-8: each byte quell could not read becomes one.
constexpr const char* kReplacement = "\xEF\xBF\xBD";
// The Latin-1 group's key: its tenant "zürich" with the ü sent as the byte FC.
const std::string kLatinKey = std::string("z") + kReplacement + "rich:pay:grp_latin";

// A quoted-printable body decoded: "=XX" a byte, "=" at a line's end joins it to the next.
std::string DecodeQuotedPrintable(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '=') {
      out.push_back(text[i]);
    } else if (text.compare(i + 1, 2, "\r\n") == 0) {
      i += 2;
    } else if (i + 2 < text.size()) {
      out.push_back(static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    }
  }
  return out;
}

// quell-sim's byte fault: every `find` in its answers becomes `hex`'s bytes.
quell::sim::Fault Bytes(const std::string& find, const std::string& hex) {
  auto fault = quell::sim::FaultFromJson(json{{"kind", "bytes"}, {"find", find}, {"bytes", hex}});
  EXPECT_TRUE(fault.ok()) << fault.error().message;
  return *fault;
}

TEST(RunUpstreamBytesTest, ATitleOrTenantThatIsNotUtf8StillOpensAndIsSentAsValidUtf8) {
  QUELL_REQUIRE_SMTP_SINK();
  auto sink = quell::testing::SmtpSink::Start();
  ASSERT_TRUE(sink.ok()) << sink.error().message;
  const json groups = json::array({{{"id", "grp_latin"},
                                    {"title", "Café crash"},
                                    {"tags", {{"tenant", "zürich"}, {"agent_stage", "pay"}}},
                                    {"events", 2}},
                                   {{"id", "grp_cut"},
                                    {"title", "Answer cut 🙂 here"},
                                    {"tags", {{"tenant", "acme"}, {"agent_stage", "answer"}}},
                                    {"events", 3}}});
  auto sim = quell::testing::StartInfraiSim(json{{"groups", groups}}, kApiKey);
  ASSERT_TRUE(sim);
  {
    const std::lock_guard lock(sim->state().mu);
    sim->state().faults.Add(Bytes("é", "e9"));
    sim->state().faults.Add(Bytes("ü", "fc"));
    // A UTF-16 upstream that cut the title inside the emoji's surrogate pair.
    sim->state().faults.Add(Bytes("🙂", "5c 75 64 38 33 64"));
  }
  quell::testing::WebhookReceiver hook(kHookSecret);
  quell::testing::SlackReceiver slack(kSlackToken);
  SetEnv("HOOK_SECRET", kHookSecret);
  SetEnv("SLACK_TOKEN", kSlackToken);
  SetEnv("BYTES_HTTP_TOKEN", kToken);

  quell::testing::ScratchDir dir("quell-bytes");
  const auto config = dir / "quell.yaml";
  std::ofstream(config)
      << "store: sqlite:" << (dir / "quell.db").string() << "\n"
      << quell::testing::kInfraiSection
      << "defaults: {healthy_polls_to_close: 1, channels: [hook, chat, mail]}\n"
      << "conditions:\n"
      << "  - {name: agent-errors, type: error_groups, interval: 1s,\n"
      << "     key: \"{tags.tenant|no-tenant}:{tags.agent_stage|no-stage}:{error_group_id}\"}\n"
      << "channels:\n"
      << "  - {name: hook, type: webhook, url: \"" << hook.Url() << "\", secret_env: HOOK_SECRET}\n"
      << "  - {name: chat, type: slack, bot_token_env: SLACK_TOKEN, channel: C42, api_url: \""
      << slack.ApiBaseUrl() << "\"}\n"
      << "  - {name: mail, type: email, url: \"" << (*sink)->url() << "\", ca_file: \""
      << (*sink)->ca_file() << "\", from: quell@example.com, to: [oncall@example.com]}\n"
      << "dispatch: {idle_interval: 100ms}\n"
      << "log: {format: json, level: info}\n"
      << "http: {listen: \"127.0.0.1:0\", token_env: BYTES_HTTP_TOKEN}\n";
  quell::testing::QuellRun run(config, dir / "run.log");
  const int port = run.WaitListening();
  ASSERT_GT(port, 0) << run.Log();

  ASSERT_TRUE(
      WaitFor([&] { return hook.DeliveredKeys().size() >= 2 && (*sink)->Received().size() >= 2; },
              seconds(30)))
      << run.Log();
  for (const json& line : run.Events("poll.condition")) {
    EXPECT_EQ(line.value("source_error", ""), "") << line.dump();
  }

  std::vector<std::string> titles;
  for (const auto& request : hook.Requests()) {
    ASSERT_TRUE(IsUtf8(request.body)) << request.body;
    const json body = json::parse(request.body);
    titles.push_back(body["incident"]["evidence"][0]["title"].get<std::string>());
  }
  EXPECT_NE(std::find(titles.begin(), titles.end(), std::string("Caf") + kReplacement + " crash"),
            titles.end());
  EXPECT_NE(
      std::find(titles.begin(), titles.end(), std::string("Answer cut ") + kReplacement + " here"),
      titles.end());
  ASSERT_GE(slack.Requests().size(), 2U);
  for (const auto& request : slack.Requests()) {
    EXPECT_TRUE(IsUtf8(request.body)) << request.body;
    EXPECT_TRUE(json::accept(request.body)) << request.body;
  }
  bool mailed_latin_title = false;
  for (const auto& mail : (*sink)->Received()) {
    EXPECT_NE(mail.Header("Content-Type").find("charset=utf-8"), std::string::npos);
    const std::string text = DecodeQuotedPrintable(mail.Body());
    EXPECT_TRUE(IsUtf8(text)) << text;
    mailed_latin_title |=
        text.find(std::string("Caf") + kReplacement + " crash") != std::string::npos;
  }
  EXPECT_TRUE(mailed_latin_title);

  // The operator API: the list and the Latin-1 key's own page are valid UTF-8 JSON.
  httplib::Client client("127.0.0.1", port);
  const httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  auto list = client.Get("/v1/incidents", auth);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->status, 200) << list->body;
  ASSERT_TRUE(IsUtf8(list->body));
  std::vector<std::string> keys;
  const json listed = json::parse(list->body);
  for (const json& incident : listed["incidents"]) {
    keys.push_back(incident["key"].get<std::string>());
  }
  EXPECT_NE(std::find(keys.begin(), keys.end(), kLatinKey), keys.end()) << list->body;
  auto one = client.Get("/v1/incidents/z%EF%BF%BDrich%3Apay%3Agrp_latin", auth);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 200) << one->body;
  EXPECT_TRUE(IsUtf8(one->body));
  EXPECT_TRUE(json::accept(one->body));
  EXPECT_EQ(run.Signal(SIGTERM), 0) << run.Log();
  sim->Stop();
}

}  // namespace
}  // namespace run_upstream_bytes_e2e_test
