// One incident opened and resolved through `quell run` (quell-sim in process, the daemon a child
// process on a real SQLite file) reaches every channel type's loopback stand-in: the open names
// the incident's key, and a resolve follows it. A channel type joins with a StandIn subclass
// (how to point its channel at the stand-in, and how to read what the stand-in received) and
// one line in kChannels.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.h"
#include "daemon_probe.h"
#include "discord_receiver.h"
#include "google_chat_receiver.h"
#include "mattermost_receiver.h"
#include "ntfy_receiver.h"
#include "opsgenie_receiver.h"
#include "quell/sim/scenario.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "teams_receiver.h"
#include "telegram_receiver.h"
#include "webhook_receiver.h"

namespace quell {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using testing::SetEnv;
using testing::WaitFor;

// One message a stand-in accepted, as the provider would show it.
struct Received {
  enum class Kind : uint8_t { kOpen, kResolve, kOther };
  Kind kind = Kind::kOther;
  std::string text;  // where the incident's key must appear (body, path, ...)
};

class StandIn {
 public:
  virtual ~StandIn() = default;
  // The channel's settings after `name:` and before the common ones, in YAML flow style
  // ("type: webhook, url: ..."), pointing at the stand-in; secrets by *_env set here.
  virtual std::string ChannelYaml() const = 0;
  // What it accepted, in arrival order.
  virtual std::vector<Received> Messages() const = 0;
  // The provider's own state once the resolve is in (an alert closed, ...).
  virtual void ExpectResolved(const std::string& /*key*/) const {}
};

class WebhookStandIn : public StandIn {
 public:
  WebhookStandIn() { SetEnv("E2E_HOOK_SECRET", kSecret); }
  std::string ChannelYaml() const override {
    return "type: webhook, url: \"" + receiver_.Url() + "\", secret_env: E2E_HOOK_SECRET";
  }
  std::vector<Received> Messages() const override {
    std::vector<Received> out;
    for (const auto& request : receiver_.Requests()) {
      if (!request.authorized || request.duplicate) continue;
      const json body = json::parse(request.body, nullptr, false);
      const std::string transition = body.is_object() ? body.value("transition", "") : "";
      out.push_back({transition == "open"      ? Received::Kind::kOpen
                     : transition == "resolve" ? Received::Kind::kResolve
                                               : Received::Kind::kOther,
                     request.body});
    }
    return out;
  }

 private:
  static constexpr const char* kSecret = "whsec-channels-e2e-5d1e";
  testing::WebhookReceiver receiver_{kSecret};
};

class OpsgenieStandIn : public StandIn {
 public:
  OpsgenieStandIn() { SetEnv("E2E_OPSGENIE_KEY", kKey); }
  std::string ChannelYaml() const override {
    return "type: opsgenie, api_url: \"" + receiver_.BaseUrl() +
           "\", api_key_env: E2E_OPSGENIE_KEY";
  }
  std::vector<Received> Messages() const override {
    std::vector<Received> out;
    for (const auto& request : receiver_.Requests()) {
      if (!request.authorized) continue;
      const bool close = request.path.ends_with("/close");
      out.push_back({close ? Received::Kind::kResolve : Received::Kind::kOpen,
                     close ? request.path : request.body});
    }
    return out;
  }
  // Closed by alias: the stand-in closes only an alias named with identifierType=alias.
  void ExpectResolved(const std::string& key) const override {
    const auto alerts = receiver_.Alerts();
    ASSERT_EQ(alerts.size(), 1U);
    EXPECT_EQ(alerts[0].details.at("quell_key"), key);
    EXPECT_TRUE(alerts[0].alias.starts_with(key + ":")) << alerts[0].alias;
    EXPECT_EQ(alerts[0].status, "closed");
    EXPECT_EQ(alerts[0].count, 1);
  }

 private:
  static constexpr const char* kKey = "og-e2e-0b7c5a1e-2f4d-4c8b-9e6a";
  testing::OpsgenieReceiver receiver_{kKey};
};

// The chat stand-ins keep text, not transitions: the subject every default template starts
// with says "<condition> resolved: <key>" for a resolve, "opened" for an open.
Received Classify(std::string text) {
  const Received::Kind kind =
      text.find(" resolved: ") != std::string::npos ? Received::Kind::kResolve
      : text.find(" opened: ") != std::string::npos ? Received::Kind::kOpen
                                                    : Received::Kind::kOther;
  return {kind, std::move(text)};
}

class TeamsStandIn : public StandIn {
 public:
  std::string ChannelYaml() const override {
    return "type: teams, url: \"" + receiver_.Url() + "\"";
  }
  std::vector<Received> Messages() const override {
    std::vector<Received> out;
    for (const testing::TeamsCard& card : receiver_.Cards()) {
      std::string text = card.title;
      for (const std::string& line : card.lines) text += "\n" + line;
      out.push_back(Classify(text));
    }
    return out;
  }

 private:
  testing::TeamsReceiver receiver_{"sig-e2e-teams-4b1f0c"};
};

class DiscordStandIn : public StandIn {
 public:
  std::string ChannelYaml() const override {
    return "type: discord, url: \"" + receiver_.WebhookUrl() + "\"";
  }
  std::vector<Received> Messages() const override {
    std::vector<Received> out;
    for (const testing::DiscordMessage& m : receiver_.Messages()) {
      out.push_back(Classify(m.content + "\n" + m.description));
    }
    return out;
  }
  // Webhooks cannot reply: the resolve names the open's message id in its footer.
  void ExpectResolved(const std::string& /*key*/) const override {
    const auto messages = receiver_.Messages();
    ASSERT_EQ(messages.size(), 2U);
    EXPECT_NE(messages[1].footer.find(messages[0].id), std::string::npos) << messages[1].footer;
  }

 private:
  testing::DiscordReceiver receiver_{"1300000000000000042", "e2e-discord-token-9f2a"};
};

class MattermostStandIn : public StandIn {
 public:
  std::string ChannelYaml() const override {
    return "type: mattermost, url: \"" + receiver_.HookUrl() + "\"";
  }
  std::vector<Received> Messages() const override {
    std::vector<Received> out;
    for (const testing::MattermostPost& post : receiver_.Posts())
      out.push_back(Classify(post.text));
    return out;
  }

 private:
  testing::MattermostReceiver receiver_{"e2ehookkey7c1d9a0b3f"};
};

class GoogleChatStandIn : public StandIn {
 public:
  std::string ChannelYaml() const override {
    return "type: google_chat, url: \"" + receiver_.WebhookUrl() + "\"";
  }
  std::vector<Received> Messages() const override {
    std::vector<Received> out;
    for (const testing::GoogleChatMessage& m : receiver_.Messages())
      out.push_back(Classify(m.text));
    return out;
  }
  // One thread per incident: the resolve replies in the open's thread.
  void ExpectResolved(const std::string& /*key*/) const override {
    const auto messages = receiver_.Messages();
    ASSERT_EQ(messages.size(), 2U);
    EXPECT_EQ(messages[1].thread_name, messages[0].thread_name);
  }

 private:
  testing::GoogleChatReceiver receiver_{"e2e-chat-key", "e2e-chat-token"};
};

class NtfyStandIn : public StandIn {
 public:
  std::string ChannelYaml() const override {
    return "type: ntfy, url: \"" + receiver_.TopicUrl() + "\"";
  }
  std::vector<Received> Messages() const override {
    std::vector<Received> out;
    for (const testing::NtfyMessage& m : receiver_.Messages()) {
      out.push_back(Classify(m.title + "\n" + m.message));
    }
    return out;
  }

 private:
  testing::NtfyReceiver receiver_;
};

class TelegramStandIn : public StandIn {
 public:
  TelegramStandIn() { SetEnv("E2E_TELEGRAM_TOKEN", kToken); }
  std::string ChannelYaml() const override {
    return "type: telegram, api_url: \"" + receiver_.ApiUrl() +
           "\", chat_id: \"-1001234567890\", token_env: E2E_TELEGRAM_TOKEN";
  }
  std::vector<Received> Messages() const override {
    std::vector<Received> out;
    for (const testing::TelegramMessage& m : receiver_.Messages()) out.push_back(Classify(m.text));
    return out;
  }
  // The resolve replies to the open's message.
  void ExpectResolved(const std::string& /*key*/) const override {
    const auto messages = receiver_.Messages();
    ASSERT_EQ(messages.size(), 2U);
    EXPECT_EQ(messages[1].reply_to, messages[0].message_id);
  }

 private:
  static constexpr const char* kToken = "7000000042:AAE2eTelegramToken";
  testing::TelegramReceiver receiver_{kToken, "-1001234567890"};
};

struct ChannelCase {
  const char* type;
  std::function<std::unique_ptr<StandIn>()> make;
};

template <typename T>
std::unique_ptr<StandIn> Make() {
  return std::make_unique<T>();
}

const ChannelCase kChannels[] = {
    {"webhook", Make<WebhookStandIn>},
    {"opsgenie", Make<OpsgenieStandIn>},
    {"teams", Make<TeamsStandIn>},
    {"discord", Make<DiscordStandIn>},
    {"google_chat", Make<GoogleChatStandIn>},
    {"mattermost", Make<MattermostStandIn>},
    {"ntfy", Make<NtfyStandIn>},
    {"telegram", Make<TelegramStandIn>},
};

class RunChannelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = testing::StartInfraiSim(json{{"groups", json::array({{{"id", "grp_1"},
                                                                 {"title", "Checkout failed"},
                                                                 {"tags", {{"tenant", "t1"}}},
                                                                 {"events", 3}}})}},
                                   "ifr_pk_proj_channels_0123456789ab");
    ASSERT_TRUE(sim_);
    for (const ChannelCase& c : kChannels) stand_ins_.push_back(c.make());
    config_ = (dir_ / "quell.yaml").string();
    log_ = dir_ / "run.log";
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  void WriteConfig() {
    std::ofstream out(config_);
    out << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
        << testing::kInfraiSection << "defaults:\n  healthy_polls_to_close: 1\n  cooldown: 1h\n"
        << "conditions:\n  - name: checkout-errors\n    type: error_groups\n    interval: 1s\n"
        << "    channels: [";
    for (size_t i = 0; i < stand_ins_.size(); ++i) out << (i > 0 ? ", " : "") << kChannels[i].type;
    out << "]\nchannels:\n";
    for (size_t i = 0; i < stand_ins_.size(); ++i) {
      out << "  - {name: " << kChannels[i].type << ", " << stand_ins_[i]->ChannelYaml()
          << ", timeout: 5s, max_attempts: 3, initial_backoff: 200ms}\n";
    }
    out << "dispatch: {lease: 2s, idle_interval: 100ms}\n"
        << "log: {format: json, level: info}\n";
  }

  size_t Count(size_t i, Received::Kind kind) const {
    size_t n = 0;
    for (const Received& r : stand_ins_[i]->Messages()) n += r.kind == kind ? 1 : 0;
    return n;
  }
  bool Every(Received::Kind kind) const {
    for (size_t i = 0; i < stand_ins_.size(); ++i) {
      if (Count(i, kind) == 0) return false;
    }
    return true;
  }
  // The incident's key, from the webhook's JSON.
  std::string Key() const {
    for (const Received& r : stand_ins_[0]->Messages()) {
      if (r.kind == Received::Kind::kOpen) return json::parse(r.text)["key"];
    }
    return "";
  }

  testing::ScratchDir dir_{"quell-run-channels-e2e"};
  std::string config_;
  std::filesystem::path log_;
  std::unique_ptr<sim::SimServer> sim_;
  std::vector<std::unique_ptr<StandIn>> stand_ins_;
};

TEST_F(RunChannelsTest, OneIncidentOpenedAndResolvedReachesEveryChannelsStandIn) {
  ASSERT_STREQ(kChannels[0].type, "webhook");  // Key() reads the webhook's JSON
  WriteConfig();
  testing::QuellRun run(config_, log_);
  ASSERT_TRUE(run.running());
  ASSERT_TRUE(WaitFor([&] { return Every(Received::Kind::kOpen); }, seconds(30)))
      << testing::ReadFile(log_);
  const std::string key = Key();
  ASSERT_FALSE(key.empty());
  {
    const std::lock_guard lock(sim_->state().mu);
    ASSERT_TRUE(sim::ApplyAction(sim_->state(), json{{"op", "resolve"}, {"group", "grp_1"}}).ok());
  }
  ASSERT_TRUE(WaitFor([&] { return Every(Received::Kind::kResolve); }, seconds(30)))
      << testing::ReadFile(log_);
  EXPECT_EQ(run.Signal(SIGTERM), 0) << testing::ReadFile(log_);

  for (size_t i = 0; i < stand_ins_.size(); ++i) {
    SCOPED_TRACE(kChannels[i].type);
    const std::vector<Received> messages = stand_ins_[i]->Messages();
    ASSERT_GE(messages.size(), 2U);
    EXPECT_EQ(messages.front().kind, Received::Kind::kOpen);
    EXPECT_NE(messages.front().text.find(key), std::string::npos) << messages.front().text;
    EXPECT_EQ(messages.back().kind, Received::Kind::kResolve);
    EXPECT_NE(messages.back().text.find(key), std::string::npos) << messages.back().text;
    EXPECT_EQ(Count(i, Received::Kind::kOpen), 1U);
    EXPECT_EQ(Count(i, Received::Kind::kResolve), 1U);
    stand_ins_[i]->ExpectResolved(key);
  }
}

}  // namespace
}  // namespace quell
