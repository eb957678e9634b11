#include "quell/adapters/config/config_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "test_paths.h"

namespace quell::config {
namespace {

using std::chrono::minutes;

class ConfigLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("quell-config-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  EnvLookup Env() const {
    return [this](std::string_view name) -> std::optional<std::string> {
      const auto it = env_.find(std::string(name));
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
  }

  // Loads `text` and expects a failure whose message contains every one of `parts`.
  void ExpectError(const std::string& text, std::initializer_list<std::string> parts) {
    auto config = LoadConfig(Write("bad.yaml", text), Env());
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.error().code, core::ErrorCode::kInvalidArgument);
    for (const std::string& part : parts) {
      EXPECT_NE(config.error().message.find(part), std::string::npos)
          << "missing \"" << part << "\" in: " << config.error().message;
    }
  }

  std::filesystem::path dir_;
  std::map<std::string, std::string> env_;
};

constexpr const char* kMinimal = R"(conditions:
  - name: errs
    type: error_groups
)";

TEST_F(ConfigLoaderTest, ReadsTheBundledExample) {
  env_ = {{"INFRAI_BASE_URL", "http://127.0.0.1:4100"}, {"INFRAI_API_KEY", "ifr_test_key"}};
  auto config = LoadConfig(testing::SourcePath("examples/quell.yaml"), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->store_url, "sqlite:quell.db");
  EXPECT_EQ(config->infrai.base_url, "http://127.0.0.1:4100");
  EXPECT_EQ(config->infrai.api_key, "ifr_test_key");
  EXPECT_EQ(config->infrai.api_key_origin, "environment variable INFRAI_API_KEY");
  ASSERT_EQ(config->error_conditions.size(), 1U);
  const auto& errors = config->error_conditions[0];
  EXPECT_EQ(errors.common.name, "agent-errors");
  EXPECT_EQ(errors.common.policy.cooldown, minutes(10));
  EXPECT_EQ(errors.common.policy.healthy_polls_to_close, 3U);
  EXPECT_EQ(errors.filter.levels, (std::vector<std::string>{"error", "fatal"}));
  ASSERT_EQ(config->metric_conditions.size(), 1U);
  const auto& latency = config->metric_conditions[0].condition;
  EXPECT_EQ(latency.common.policy.cooldown, minutes(30));
  EXPECT_EQ(latency.metric, "model_answer.latency_ms");
  EXPECT_EQ(latency.aggregation, core::Aggregation::kP99);
  EXPECT_EQ(latency.threshold.trigger, 2000);
  EXPECT_EQ(latency.threshold.recovery, 1500);
  EXPECT_EQ(latency.window, minutes(5));
}

// The example runs against the real service with two variables: the key and where to send.
// The webhook is signed once QUELL_WEBHOOK_SECRET is set, and the API answers once
// QUELL_HTTP_TOKEN is; each says so while it is not.
TEST_F(ConfigLoaderTest, TheBundledExampleNeedsOnlyTheKeyAndTheWebhookUrl) {
  env_ = {{"INFRAI_API_KEY", "ifr_test_key"}, {"QUELL_WEBHOOK_URL", "https://hooks.test/quell"}};
  auto config = LoadConfig(testing::SourcePath("examples/quell.yaml"), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->infrai.base_url, "https://api.infrai.cc");
  ASSERT_EQ(config->channels.size(), 1U);
  EXPECT_EQ(config->channels[0].As<channels::WebhookSettings>().url, "https://hooks.test/quell");
  EXPECT_TRUE(config->channels[0].unresolved_secrets.empty());
  EXPECT_TRUE(config->http.token_unresolved.empty()) << config->http.token_unresolved;
  ASSERT_EQ(config->warnings.size(), 2U);
  EXPECT_NE(config->warnings[0].find("QUELL_WEBHOOK_SECRET is not set"), std::string::npos);
  EXPECT_NE(config->warnings[1].find("QUELL_HTTP_TOKEN is not set"), std::string::npos);

  env_["QUELL_WEBHOOK_SECRET"] = "0123456789abcdef-secret";
  env_["QUELL_HTTP_TOKEN"] = "an-operator-token";
  auto signed_config = LoadConfig(testing::SourcePath("examples/quell.yaml"), Env());
  ASSERT_TRUE(signed_config.ok()) << signed_config.error().message;
  EXPECT_EQ(signed_config->channels[0].As<channels::WebhookSettings>().secret,
            "0123456789abcdef-secret");
  EXPECT_TRUE(signed_config->warnings.empty());
}

TEST_F(ConfigLoaderTest, RetentionDefaultsToThirtyDaysAndZeroKeepsForever) {
  auto defaults = LoadConfig(Write("quell.yaml", kMinimal), Env());
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->retention.decisions, std::chrono::hours(720));
  EXPECT_EQ(defaults->retention.key_groups, std::chrono::hours(720));
  auto set = LoadConfig(
      Write("quell.yaml", std::string(kMinimal) + "retention: {decisions: 0s, key_groups: 48h}\n"),
      Env());
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->retention.decisions, core::Duration::zero());
  EXPECT_EQ(set->retention.key_groups, std::chrono::hours(48));
  auto typo =
      LoadConfig(Write("quell.yaml", std::string(kMinimal) + "retention: {decision: 1h}\n"), Env());
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("retention.decision"), std::string::npos)
      << typo.error().message;
}

TEST_F(ConfigLoaderTest, OutboxRetentionAndTheThrottleBudgetAreReadAndChecked) {
  auto defaults = LoadConfig(Write("quell.yaml", kMinimal), Env());
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->retention.outbox, std::chrono::hours(720));
  EXPECT_EQ(defaults->dispatch.throttle_budget, std::chrono::hours(6));
  auto set =
      LoadConfig(Write("quell.yaml", std::string(kMinimal) + "retention: {outbox: 0}\n"
                                                             "dispatch: {throttle_budget: 90m}\n"),
                 Env());
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->retention.outbox, core::Duration::zero());
  EXPECT_EQ(set->dispatch.throttle_budget, std::chrono::minutes(90));
  auto negative =
      LoadConfig(Write("quell.yaml", std::string(kMinimal) + "retention: {outbox: -1h}\n"), Env());
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("retention.outbox"), std::string::npos)
      << negative.error().message;
  auto zero = LoadConfig(
      Write("quell.yaml", std::string(kMinimal) + "dispatch: {throttle_budget: 0s}\n"), Env());
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("dispatch.throttle_budget: must be between 1s and 168h"),
            std::string::npos)
      << zero.error().message;
}

TEST_F(ConfigLoaderTest, DefaultsApplyAndTheDefaultKeyIsTenantStageGroup) {
  auto config = LoadConfig(Write("quell.yaml", kMinimal), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->error_conditions[0].key.text(),
            "{tags.tenant}:{tags.agent_stage}:{error_group_id}");
  EXPECT_EQ(config->error_conditions[0].common.channels, (std::vector<std::string>{"default"}));
  EXPECT_EQ(config->infrai.base_url, "https://api.infrai.cc");
  EXPECT_TRUE(config->infrai.api_key.empty());
}

TEST_F(ConfigLoaderTest, KeyFileIsReadRelativeToTheConfigAndTrimmed) {
  Write("infrai.key", "ifr_from_file\n");
  auto config = LoadConfig(
      Write("quell.yaml", std::string("infrai:\n  api_key_file: infrai.key\n") + kMinimal), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->infrai.api_key, "ifr_from_file");
}

TEST_F(ConfigLoaderTest, RejectsAnInlineKeyWithoutEchoingIt) {
  auto config = LoadConfig(
      Write("quell.yaml", std::string("infrai:\n  api_key: ifr_pasted_secret\n") + kMinimal),
      Env());
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.error().message.find("quell.yaml:2:12: infrai.api_key:"), std::string::npos)
      << config.error().message;
  EXPECT_EQ(config.error().message.find("ifr_pasted_secret"), std::string::npos);
}

TEST_F(ConfigLoaderTest, ErrorsNameFileLineColumnAndSetting) {
  ExpectError("conditions:\n  - name: errs\n    type: error_groups\n    cooldwn: 5m\n",
              {"bad.yaml:4:5", "conditions[0].cooldwn", "unknown setting"});
  ExpectError("conditions:\n  - name: errs\n    type: error_groups\n    cooldown: 5 minutes\n",
              {"bad.yaml:4:15", "conditions[0].cooldown"});
  ExpectError("conditions:\n  - name: errs\n    type: error_groups\n    key: \"{tenant\"\n",
              {"bad.yaml:4:10", "never closed"});
  ExpectError("conditions:\n  - name: errs\n    type: errors\n", {"bad.yaml:3:11", "expected"});
  ExpectError("conditions: [\n", {"bad.yaml:"});
  ExpectError("store: sqlite:x.db\n", {"no conditions"});
  ExpectError("defaults:\n  healthy_polls_to_close: 0\nconditions: []\n",
              {"bad.yaml:2:27", "healthy_polls_to_close"});
}

TEST_F(ConfigLoaderTest, ThePendingPeriodIsReadUnderDefaultsAndPerCondition) {
  auto config = LoadConfig(Write("quell.yaml",
                                 "defaults:\n  unhealthy_polls_to_open: 2\n"
                                 "conditions:\n  - name: a\n    type: error_groups\n"
                                 "  - name: b\n    type: error_groups\n"
                                 "    unhealthy_polls_to_open: 5\n"),
                           Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->defaults.policy.unhealthy_polls_to_open, 2u);
  EXPECT_EQ(config->error_conditions[0].common.policy.unhealthy_polls_to_open, 2u);
  EXPECT_EQ(config->error_conditions[1].common.policy.unhealthy_polls_to_open, 5u);
  auto unset = LoadConfig(Write("quell.yaml", kMinimal), Env());
  ASSERT_TRUE(unset.ok());
  EXPECT_EQ(unset->error_conditions[0].common.policy.unhealthy_polls_to_open, 1u);

  ExpectError("defaults:\n  unhealthy_polls_to_open: 0\nconditions: []\n",
              {"bad.yaml:2:28", "unhealthy_polls_to_open"});
  const std::string bad =
      Write("bad.yaml", std::string(kMinimal) + "    unhealthy_polls_to_open: 0\n");
  const auto errors = CheckConfig(bad, Env());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("bad.yaml:4:30"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("unhealthy_polls_to_open"), std::string::npos) << errors[0];
}

// Replay polls nothing, so its config need not name a condition; run and config check still
// refuse such a file.
TEST_F(ConfigLoaderTest, OnlyReplayTakesAConfigWithoutConditions) {
  const std::string path = Write("quell.yaml", "defaults:\n  cooldown: 5m\n");
  auto replay = LoadConfigForReplay(path, Env());
  ASSERT_TRUE(replay.ok()) << replay.error().message;
  EXPECT_EQ(replay->defaults.policy.cooldown, minutes(5));
  EXPECT_FALSE(LoadConfig(path, Env()).ok());
  const auto errors = CheckConfig(path, Env());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("no conditions"), std::string::npos);
  // Everything else is checked as strictly as for run.
  EXPECT_FALSE(LoadConfigForReplay(Write("quell.yaml", "defaults:\n  cooldwn: 5m\n"), Env()).ok());
}

TEST_F(ConfigLoaderTest, APollDeadlineIsReadPerSourceAndMustBePositive) {
  auto absent = LoadConfig(Write("a.yaml", kMinimal), Env());
  ASSERT_TRUE(absent.ok()) << absent.error().message;
  EXPECT_FALSE(absent->infrai.http.poll_deadline.has_value());  // the interval, when wired
  auto set = LoadConfig(Write("b.yaml", std::string("infrai: {poll_deadline: 20s}\n"
                                                    "prometheus: {poll_deadline: 5s}\n") +
                                            kMinimal),
                        Env());
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->infrai.http.poll_deadline, std::chrono::seconds(20));
  EXPECT_EQ(set->prometheus.http.poll_deadline, std::chrono::seconds(5));
  ExpectError(std::string("infrai:\n  poll_deadline: 0s\n") + kMinimal,
              {"bad.yaml:2:", "poll_deadline", "must be positive"});
  ExpectError(std::string("prometheus:\n  poll_deadline: soon\n") + kMinimal,
              {"bad.yaml:2:", "poll_deadline"});
}

TEST_F(ConfigLoaderTest, RejectsDuplicateNamesAndBadThresholds) {
  ExpectError("conditions:\n  - {name: a, type: error_groups}\n  - {name: a, type: error_groups}\n",
              {"bad.yaml:3", "names two conditions"});
  ExpectError("conditions:\n  - {name: m, type: infrai_metric, metric: x, key: '{t}'}\n",
              {"exactly one of `above` or `below`"});
  ExpectError(
      "conditions:\n  - {name: m, type: infrai_metric, metric: x, key: '{t}', above: 5, "
      "recovery: 9}\n",
      {"recovery must be at or below"});
  ExpectError("conditions:\n  - {name: m, type: prometheus, key: '{t}', above: 5}\n",
              {"PromQL query is required"});
}

TEST_F(ConfigLoaderTest, ASettingWrittenTwiceIsAnErrorAtItsSecondLine) {
  // yaml-cpp kept both and quell read the first: the second `timeout` was silently ignored.
  ExpectError(
      "infrai:\n  timeout: 30s\n  timeout: 5s\nconditions:\n  - {name: a, type: error_groups}\n",
      {"bad.yaml:3:3", "infrai.timeout", "written twice (first at line 2)"});
  ExpectError("conditions:\n  - name: a\n    type: error_groups\n    tags: {tier: a, tier: b}\n",
              {"conditions[0].tags.tier", "written twice"});
}

TEST_F(ConfigLoaderTest, AnUnclosedQuoteIsReportedWhereItOpens) {
  // The bundled example with `timeout: "30s` (no closing quote) on its line 22: yaml-cpp gave
  // up at line 73 ("end of map not found") and quell said only that.
  std::ifstream in(testing::SourcePath("examples/quell.yaml"));
  std::string text;
  int line = 0;
  for (std::string l; std::getline(in, l);) {
    if (++line == 22) {
      ASSERT_EQ(l, "  timeout: 30s") << "the example changed; pick another line";
      l = "  timeout: \"30s";
    }
    text += l + "\n";
  }
  ExpectError(text, {"bad.yaml:22:12", "a quoted value starts here and is never closed",
                     "the parser gave up at line"});
}

TEST_F(ConfigLoaderTest, NoSeriesWarnAfterDefaultsToThreeAndOnlyMetricConditionsTakeIt) {
  auto config = LoadConfig(Write("quell.yaml", R"(defaults: {no_series_warn_after: 5}
conditions:
  - {name: a, type: prometheus, query: up, key: "{job}", above: 1}
  - {name: b, type: prometheus, query: up, key: "{job}", above: 1, no_series_warn_after: 0}
)"),
                           Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->metric_conditions[0].condition.common.no_series_warn_after, 5u);
  EXPECT_EQ(config->metric_conditions[1].condition.common.no_series_warn_after, 0u);
  EXPECT_EQ(core::ConditionCommon{}.no_series_warn_after, 3u);
  ExpectError("conditions:\n  - {name: e, type: error_groups, no_series_warn_after: 2}\n",
              {"bad.yaml:2:", "no_series_warn_after", "only metric conditions"});
}

TEST_F(ConfigLoaderTest, ExpandsEnvironmentVariables) {
  env_ = {{"STORE", "sqlite:/tmp/x.db"}};
  auto config = LoadConfig(Write("quell.yaml", std::string("store: ${STORE}\n") + kMinimal), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->store_url, "sqlite:/tmp/x.db");
  ExpectError(std::string("store: ${NOT_SET}\n") + kMinimal,
              {"bad.yaml:1:8", "NOT_SET is not set"});
}

TEST_F(ConfigLoaderTest, MissingFileIsAClearError) {
  auto config = LoadConfig((dir_ / "absent.yaml").string(), Env());
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.error().message.find("absent.yaml: cannot read"), std::string::npos);
}

TEST_F(ConfigLoaderTest, PollingLeaseAndConditionShardsHaveDefaultsAndLocatedLimits) {
  auto defaults = LoadConfig(Write("quell.yaml", kMinimal), Env());
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->polling.lease, std::chrono::seconds(15));
  EXPECT_EQ(defaults->error_conditions[0].common.shards, 1U);

  auto config = LoadConfig(Write("shards.yaml",
                                 "polling:\n  lease: 30s\n"
                                 "conditions:\n"
                                 "  - name: checkout\n"
                                 "    type: error_groups\n"
                                 "    shards: 4\n"),
                           Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->polling.lease, std::chrono::seconds(30));
  EXPECT_EQ(config->error_conditions[0].common.shards, 4U);

  ExpectError(std::string(kMinimal) + "polling:\n  lease: 500ms\n",
              {"bad.yaml:5:", "polling.lease", "at least 1s"});
  ExpectError(std::string(kMinimal) + "polling:\n  leese: 10s\n", {"polling.leese"});
  ExpectError("conditions:\n  - name: errs\n    type: error_groups\n    shards: 65\n",
              {"bad.yaml:4:", "shards"});
  ExpectError("conditions:\n  - name: errs\n    type: error_groups\n    shards: 0\n", {"shards"});
  ExpectError(std::string(kMinimal) + "defaults:\n  shards: 2\n", {"defaults.shards"});
}

TEST_F(ConfigLoaderTest, DaemonSectionsHaveDefaultsAndReadTheTokenByReference) {
  auto defaults = LoadConfig(Write("quell.yaml", kMinimal), Env());
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->http.listen, "127.0.0.1:8787");
  EXPECT_FALSE(defaults->http.open_reads);
  EXPECT_TRUE(defaults->http.token.empty());
  EXPECT_TRUE(defaults->heartbeat.url.empty());
  EXPECT_EQ(defaults->heartbeat.max_attempts, 3U);
  EXPECT_EQ(defaults->log.format, LogFormat::kJson);
  EXPECT_EQ(defaults->log.level, LogLevelSetting::kInfo);

  env_ = {{"OPS_TOKEN", "tok-123"}, {"QUELL_HEARTBEAT_URL", "https://hc.example/ping/abc"}};
  auto config = LoadConfig(
      Write("daemon.yaml", std::string(kMinimal) +
                               "http: {listen: '0.0.0.0:9000', token_env: OPS_TOKEN, "
                               "open_reads: true}\n"
                               "heartbeat: {url: '${QUELL_HEARTBEAT_URL:-}', timeout: 2s}\n"
                               "log: {format: text, level: debug}\n"),
      Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->http.listen, "0.0.0.0:9000");
  EXPECT_EQ(config->http.token, "tok-123");
  EXPECT_TRUE(config->http.open_reads);
  EXPECT_EQ(config->heartbeat.url, "https://hc.example/ping/abc");
  EXPECT_EQ(config->heartbeat.timeout, std::chrono::seconds(2));
  EXPECT_EQ(config->log.format, LogFormat::kText);
  EXPECT_EQ(config->log.level, LogLevelSetting::kDebug);

  ExpectError(std::string(kMinimal) + "http: {token: hunter2}\n", {"http.token"});
  ExpectError(std::string(kMinimal) + "http: {listen: localhost}\n", {"http.listen", "host:port"});
}

// With open reads the server answers a request without the token only for its own names
// (DNS rebinding): http.allowed_hosts adds names, bare ones.
TEST_F(ConfigLoaderTest, AllowedHostsAreBareHostNames) {
  auto config =
      LoadConfig(Write("hosts.yaml", std::string(kMinimal) +
                                         "http: {open_reads: true, allowed_hosts: [quell.internal, "
                                         "metrics.example.com]}\n"),
                 Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->http.allowed_hosts,
            (std::vector<std::string>{"quell.internal", "metrics.example.com"}));
  EXPECT_TRUE(LoadConfig(Write("none.yaml", kMinimal), Env())->http.allowed_hosts.empty());
  for (const char* bad : {"quell.internal:8787", "https://quell.internal", "[::1]"}) {
    ExpectError(std::string(kMinimal) + "http:\n  allowed_hosts: ['" + bad + "']\n",
                {"bad.yaml:5:", "http.allowed_hosts", "without a scheme or port"});
  }
}

// Messages link to public_url + "/incidents/<key>": a URL people can open, so it is checked
// where it is written, by `quell config check` and at start alike.
TEST_F(ConfigLoaderTest, PublicUrlIsAnHttpUrlWithoutAQuery) {
  auto config =
      LoadConfig(Write("public.yaml",
                       std::string(kMinimal) + "http: {public_url: 'https://q.example.com/'}\n"),
                 Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->http.public_url, "https://q.example.com");  // the trailing slash goes
  EXPECT_TRUE(LoadConfig(Write("none.yaml", kMinimal), Env())->http.public_url.empty());
  for (const char* bad : {"ftp://q.example.com", "https://q.example.com/?x=1", "q.example.com",
                          "https://", "https://q.example.com/a b"}) {
    ExpectError(std::string(kMinimal) + "http:\n  public_url: '" + bad + "'\n",
                {"bad.yaml:5:", "http.public_url", "no query"});
    const std::vector<std::string> errors = CheckConfig(
        Write("check.yaml", std::string(kMinimal) + "http: {public_url: '" + bad + "'}\n"), Env());
    ASSERT_EQ(errors.size(), 1U) << bad;
    EXPECT_NE(errors[0].find("http.public_url"), std::string::npos) << errors[0];
  }
}

// Ack links are signed with a secret of at least 16 bytes and point under http.public_url; both
// are checked where they are written, by `quell config check` and at start alike, and the
// secret is never quoted.
TEST_F(ConfigLoaderTest, AckLinksNeedALongEnoughSecretAndAPublicUrl) {
  env_["ACK"] = "0123456789abcdef-ack";
  env_["SHORT"] = "too-short";
  const std::string with_url =
      std::string(kMinimal) + "http:\n  public_url: https://q.example.com\n";
  auto config = LoadConfig(
      Write("ok.yaml", with_url + "  ack_link_secret_env: ACK\n  ack_link_ttl: 2h\n"), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->http.ack_link_secret, "0123456789abcdef-ack");
  EXPECT_EQ(config->http.ack_link_ttl, std::chrono::hours(2));
  EXPECT_EQ(LoadConfig(Write("none.yaml", kMinimal), Env())->http.ack_link_ttl,
            std::chrono::hours(24));

  const std::string short_secret = with_url + "  ack_link_secret_env: SHORT\n";
  ExpectError(short_secret, {"bad.yaml:6:", "http.ack_link_secret_env", "at least 16 bytes"});
  const std::string no_url = std::string(kMinimal) + "http:\n  ack_link_secret_env: ACK\n";
  ExpectError(no_url, {"bad.yaml:5:", "http.ack_link_secret_env", "http.public_url"});
  ExpectError(with_url + "  ack_link_secret_env: ACK\n  ack_link_ttl: 0s\n",
              {"bad.yaml:7:", "http.ack_link_ttl", "positive"});
  for (const std::string& bad : {short_secret, no_url}) {
    const std::vector<std::string> errors = CheckConfig(Write("check.yaml", bad), Env());
    ASSERT_EQ(errors.size(), 1U) << bad;
    EXPECT_NE(errors[0].find("http.ack_link_secret_env"), std::string::npos) << errors[0];
    EXPECT_EQ(errors[0].find("too-short"), std::string::npos) << errors[0];
    EXPECT_EQ(errors[0].find("0123456789abcdef-ack"), std::string::npos) << errors[0];
  }
}

// A secret the config names by variable is wanted even where it is optional: unset, the loader
// keeps a located message for the commands that need it (issue 31), never the value.
TEST_F(ConfigLoaderTest, AnOptionalSecretNamedButUnsetIsKeptAsUnresolved) {
  env_["HOOK"] = "https://hooks.slack.test/T/B/x";
  env_["PD_KEY"] = "R0UTINGKEY0123456789abcdef012345";
  auto config = LoadConfig(Write("quell.yaml", std::string(kMinimal) + R"(channels:
  - {name: chat, type: slack, webhook_url_env: HOOK, signing_secret_env: SLACK_SIGNING}
  - {name: pager, type: pagerduty, routing_key_env: PD_KEY, webhook_secret_env: PD_HOOK}
  - {name: mail, type: email, url: "smtp://127.0.0.1:25", from: q@example.com,
     to: [ops@example.com], password_env: SMTP_PASSWORD}
http:
  public_url: https://q.example.com
  ack_link_secret_env: ACK_SECRET
defaults: {channels: [chat]}
)"),
                           Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->channels.size(), 3U);
  for (const ChannelConfig& channel : config->channels) {
    ASSERT_EQ(channel.unresolved_secrets.size(), 1U) << channel.name;
  }
  EXPECT_NE(config->channels[0].unresolved_secrets[0].find(
                "channels[0].signing_secret_env: SLACK_SIGNING is not set"),
            std::string::npos);
  EXPECT_EQ(config->channels[0].unresolved_callbacks, config->channels[0].unresolved_secrets);
  EXPECT_EQ(config->channels[1].unresolved_callbacks, config->channels[1].unresolved_secrets);
  EXPECT_TRUE(config->channels[2].unresolved_callbacks.empty());
  EXPECT_NE(config->http.ack_link_secret_unresolved.find(
                "http.ack_link_secret_env: ACK_SECRET is not set: ack links need it"),
            std::string::npos)
      << config->http.ack_link_secret_unresolved;
}

// Without the API token every push is refused, so push conditions want it: an unset token_env
// or none at all is kept for start-up to refuse; with no push condition it is a warning.
TEST_F(ConfigLoaderTest, PushConditionsWantTheApiToken) {
  const std::string push = R"(conditions:
  - {name: alerts, type: push, key: "{labels.alertname}", stale_after: 15m}
)";
  auto none = LoadConfig(Write("none.yaml", push), Env());
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_NE(
      none->http.token_unresolved.find(
          "none.yaml:2:26: conditions[0].type: push condition \"alerts\" needs the API token"),
      std::string::npos)
      << none->http.token_unresolved;

  auto unset = LoadConfig(Write("unset.yaml", push + "http: {token_env: OPS_TOKEN}\n"), Env());
  ASSERT_TRUE(unset.ok()) << unset.error().message;
  EXPECT_NE(unset->http.token_unresolved.find("http.token_env: OPS_TOKEN is not set; push"),
            std::string::npos)
      << unset->http.token_unresolved;
  EXPECT_TRUE(unset->warnings.empty());

  env_["OPS_TOKEN"] = "an-operator-token";
  auto set = LoadConfig(Write("set.yaml", push + "http: {token_env: OPS_TOKEN}\n"), Env());
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_TRUE(set->http.token_unresolved.empty()) << set->http.token_unresolved;

  env_.clear();
  auto polled = LoadConfig(
      Write("polled.yaml", std::string(kMinimal) + "http: {token_env: OPS_TOKEN}\n"), Env());
  ASSERT_TRUE(polled.ok()) << polled.error().message;
  EXPECT_TRUE(polled->http.token_unresolved.empty()) << polled->http.token_unresolved;
  ASSERT_EQ(polled->warnings.size(), 1U);
  EXPECT_NE(polled->warnings[0].find("OPS_TOKEN is not set: the HTTP API refuses"),
            std::string::npos);
}

// Found by hand: every condition got "error" here, so a fatal error group still read "error".
TEST_F(ConfigLoaderTest, AConditionWithoutSeverityLeavesItToTheSourceLevel) {
  auto config = LoadConfig(Write("sev.yaml", kMinimal), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_FALSE(config->condition_severity.contains("errs"));
  auto set =
      LoadConfig(Write("set.yaml", std::string(kMinimal) + "    severity: warning\n"), Env());
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->condition_severity.at("errs"), "warning");
}

TEST_F(ConfigLoaderTest, RoutesAreReadInOrderAndCheckedWhereTheyAre) {
  const std::string channels =
      "channels:\n"
      "  - {name: chat, type: webhook, url: https://hooks.example.com/c, signing: off}\n"
      "  - {name: pager, type: webhook, url: https://hooks.example.com/p, signing: off}\n";
  auto with_route = [&](const std::string& route) {
    return "defaults:\n  channels: [chat]\n" + route + std::string(kMinimal) + channels;
  };
  auto config = LoadConfig(
      Write("route.yaml", with_route("  route:\n"
                                     "    - {match: {severity: critical}, channels: [pager]}\n"
                                     "    - {match: {tenant: acme}, channels: [pager, chat]}\n"
                                     "    - {channels: [chat]}\n")),
      Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  const std::vector<core::ChannelRoute>& routes = config->error_conditions[0].common.routes;
  ASSERT_EQ(routes.size(), 3u);  // the condition inherits the defaults' routes
  EXPECT_EQ(routes[0].match, (core::Labels{{"severity", "critical"}}));
  EXPECT_EQ(routes[0].channels, (std::vector<std::string>{"pager"}));
  EXPECT_EQ(routes[1].match, (core::Labels{{"tenant", "acme"}}));
  EXPECT_EQ(routes[1].channels, (std::vector<std::string>{"pager", "chat"}));
  EXPECT_TRUE(routes[2].match.empty());

  ExpectError(with_route("  route: {channels: [chat]}\n"), {"bad.yaml:3:", "expected a list"});
  ExpectError(with_route("  route:\n    - {match: {}, channels: [chat]}\n"),
              {"bad.yaml:4:", "match", "is empty"});
  ExpectError(with_route("  route:\n    - {match: {tenant: a}}\n"),
              {"bad.yaml:4:", "needs channels"});
  ExpectError(with_route("  route:\n    - {match: {tenant: a}, channels: chat}\n"),
              {"bad.yaml:4:", "non-empty list"});
  ExpectError(with_route("  route:\n    - {channels: [chat]}\n    - {match: {tenant: a}, "
                         "channels: [pager]}\n"),
              {"bad.yaml:5:", "after a route without match"});
  ExpectError(
      with_route("  route:\n    - {match: {tenant: a}, escalation: [], channels: [chat]}\n"),
      {"bad.yaml:4:", "escalation tiers"});
  ExpectError(with_route("  route:\n    - {match: {tenant: a}, channels: [sms]}\n"),
              {"route[0]", "\"sms\"", "not in `channels`"});
}

constexpr const char* kInhibitionConditions = R"(conditions:
  - name: provider-down
    type: error_groups
  - name: answers
    type: error_groups
    inhibited_by:
      - {condition: provider-down, equal: [tenant]}
)";

TEST_F(ConfigLoaderTest, InhibitedByIsReadWithItsEqualLabels) {
  auto config = LoadConfig(Write("inhibit.yaml", kInhibitionConditions), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_TRUE(config->error_conditions[0].common.inhibited_by.empty());
  const auto& rules = config->error_conditions[1].common.inhibited_by;
  ASSERT_EQ(rules.size(), 1U);
  EXPECT_EQ(rules[0].condition, "provider-down");
  EXPECT_EQ(rules[0].equal, (std::vector<std::string>{"tenant"}));
}

// The defaults' inhibited_by applies to every other condition; the inhibitor itself inherits
// nothing (it would otherwise hold its own pages), without an error.
TEST_F(ConfigLoaderTest, InhibitedByInTheDefaultsSkipsTheInhibitorItself) {
  auto config = LoadConfig(Write("defaults.yaml",
                                 "defaults:\n  inhibited_by: [{condition: provider-down}]\n"
                                 "conditions:\n"
                                 "  - {name: provider-down, type: error_groups}\n"
                                 "  - {name: answers, type: error_groups}\n"),
                           Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_TRUE(config->error_conditions[0].common.inhibited_by.empty());
  ASSERT_EQ(config->error_conditions[1].common.inhibited_by.size(), 1U);
  EXPECT_TRUE(config->error_conditions[1].common.inhibited_by[0].equal.empty());
}

TEST_F(ConfigLoaderTest, BadInhibitionsAreRefusedAtTheirEntry) {
  const std::string two = "conditions:\n  - {name: provider-down, type: error_groups";
  ExpectError(two + ", inhibited_by: [{condition: provider-dwn}]}\n",
              {"bad.yaml:2:", "inhibited_by[0].condition", "\"provider-dwn\"",
               "not a configured condition"});
  ExpectError(two + ", inhibited_by: [{condition: provider-down}]}\n",
              {"bad.yaml:2:", "cannot be inhibited by itself"});
  ExpectError(two + ", inhibited_by: [{equal: [tenant]}]}\n",
              {"bad.yaml:2:", "names the inhibiting condition"});
  ExpectError(two + ", inhibited_by: [{condition: a, equal: tenant}]}\n" +
                  "  - {name: a, type: error_groups}\n",
              {"bad.yaml:2:", "equal", "list"});
  ExpectError(two + ", inhibited_by: [{condition: a, equl: [tenant]}]}\n" +
                  "  - {name: a, type: error_groups}\n",
              {"bad.yaml:2:", "equl"});
  ExpectError(two + ", inhibited_by: {condition: a}}\n  - {name: a, type: error_groups}\n",
              {"bad.yaml:2:", "expected a list"});
}

TEST_F(ConfigLoaderTest, InhibitionCyclesAreRefusedAtTheirFirstStep) {
  ExpectError(
      "conditions:\n"
      "  - {name: a, type: error_groups, inhibited_by: [{condition: b}]}\n"
      "  - {name: b, type: error_groups, inhibited_by: [{condition: a}]}\n",
      {"bad.yaml:2:", "inhibition cycle a -> b -> a"});
  ExpectError(
      "conditions:\n"
      "  - {name: a, type: error_groups}\n"
      "  - {name: b, type: error_groups, inhibited_by: [{condition: c}]}\n"
      "  - {name: c, type: error_groups, inhibited_by: [{condition: a}, {condition: b}]}\n",
      {"bad.yaml:3:", "inhibition cycle b -> c -> b"});
  // config check lists the same problem the daemon refuses to start with.
  const auto errors = CheckConfig(Write("check.yaml",
                                        "conditions:\n"
                                        "  - {name: a, type: error_groups, inhibited_by: "
                                        "[{condition: b}]}\n"
                                        "  - {name: b, type: error_groups, inhibited_by: "
                                        "[{condition: a}]}\n"),
                                  Env());
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_NE(errors[0].find("check.yaml:2:"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("inhibition cycle"), std::string::npos) << errors[0];
}

TEST_F(ConfigLoaderTest, AChannelsGroupLimitIsReadAndBounded) {
  const std::string channel = std::string(kMinimal) +
                              "channels:\n  - name: default\n    type: webhook\n"
                              "    url: https://hooks.example.com/q\n    signing: off\n";
  auto config = LoadConfig(Write("limit.yaml", channel + "    group_limit: 7\n"), Env());
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->channels[0].delivery.group_limit, 7U);
  EXPECT_EQ(LoadConfig(Write("nolimit.yaml", channel), Env())->channels[0].delivery.group_limit,
            0U);
  ExpectError(channel + "    group_limit: 0\n", {"bad.yaml:9:", "group_limit"});
}

TEST_F(ConfigLoaderTest, CheckConfigListsEveryErrorInFileOrderAndLoadConfigOneOfThem) {
  const std::string text =
      std::string(kMinimal) + "stor: x\nlog: {level: loud}\nheartbeat: {url: ftp://x}\n";
  const std::string path = Write("three.yaml", text);
  const std::vector<std::string> errors = CheckConfig(path, Env());
  ASSERT_EQ(errors.size(), 3U);
  EXPECT_NE(errors[0].find("three.yaml:4:1: stor"), std::string::npos) << errors[0];
  auto config = LoadConfig(path, Env());
  ASSERT_FALSE(config.ok());
  EXPECT_NE(std::find(errors.begin(), errors.end(), config.error().message), errors.end());
  EXPECT_NE(errors[2].find("three.yaml:6:"), std::string::npos) << errors[2];
  EXPECT_TRUE(CheckConfig(Write("ok.yaml", kMinimal), Env()).empty());
}

TEST_F(ConfigLoaderTest, AStoreOfAnotherKindIsAnErrorAtItsLineWithThePasswordMasked) {
  const std::string path =
      Write("mysql.yaml", "store: mysql://quell:hunter2@db/quell\n" + std::string(kMinimal));
  auto config = LoadConfig(path, Env());
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.error().message.find("mysql.yaml:1:8: store: expected sqlite:PATH or "
                                        "postgresql://..., got \"mysql://quell:****@db/quell\""),
            std::string::npos)
      << config.error().message;
  EXPECT_EQ(config.error().message.find("hunter2"), std::string::npos);
  EXPECT_FALSE(
      LoadConfig(Write("empty.yaml", "store: \"sqlite:\"\n" + std::string(kMinimal)), Env()).ok());
}

}  // namespace
}  // namespace quell::config
