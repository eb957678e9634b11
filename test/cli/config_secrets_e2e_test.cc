// A feature the config turns on but whose secret is missing cannot work, so `quell config check`
// and `quell run` both refuse it, at the setting's file:line:column, naming the variable: a push
// condition without the API token (every push would be refused with 403), ack links without
// their secret, the Slack and PagerDuty callbacks without their signing secrets (with or
// without dispatch), and a channel credential named but unset. An unset http.token_env with
// nothing that needs it stays a warning, as does a webhook's `signing: when_set`.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run_process.h"
#include "test_paths.h"

namespace quell {
namespace {

class ConfigSecretsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "quell-secrets-XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    for (const char* name : {"QUELL_SECRETS_TOKEN", "QUELL_SECRETS_ACK", "QUELL_SECRETS_SIGNING",
                             "QUELL_SECRETS_PD_WEBHOOK", "QUELL_SECRETS_SMTP", "QUELL_SECRETS_NTFY",
                             "INFRAI_API_KEY", "INFRAI_BASE_URL"}) {
      unsetenv(name);  // NOLINT(concurrency-mt-unsafe)
    }
    setenv("QUELL_SECRETS_SLACK_HOOK", "https://hooks.slack.invalid/T/B/x", 1);  // NOLINT
    setenv("QUELL_SECRETS_PD_KEY", "R0UTINGKEY0123456789abcdef012345", 1);       // NOLINT
    config_ = (dir_ / "quell.yaml").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A push-only config (no source, no key needed), then `tail`.
  void Write(const std::string& tail) {
    std::ofstream(config_) << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"  // 1
                           << "conditions:\n"                                           // 2
                           << "  - name: alerts\n"                                      // 3
                           << "    type: push\n"                                        // 4
                           << "    key: \"{labels.alertname}\"\n"                       // 5
                           << "    stale_after: 15m\n"                                  // 6
                           << tail;                                                     // 7..
  }

  testing::ProcessResult Check() {
    return testing::RunProcess(
        {testing::QuellBinary(), "config", "check", "-c", config_, "--offline"});
  }
  // `quell run`, killed after 20 s should it start: a refused config exits 2 at once.
  testing::ProcessResult Run(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {
        "/usr/bin/timeout", "20", testing::QuellBinary(), "run", "-c", config_};
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::RunProcess(args);
  }
  bool Says(const std::string& text, const std::string& located) const {
    return text.find(config_ + ":" + located) != std::string::npos;
  }

  std::filesystem::path dir_;
  std::string config_;
};

constexpr const char* kTokenLine =
    "http: {listen: \"127.0.0.1:0\", token_env: QUELL_SECRETS_TOKEN}\n";

TEST_F(ConfigSecretsTest, APushConditionWhoseTokenVariableIsUnsetStopsCheckAndRun) {
  Write(kTokenLine);  // line 7; the variable's name at column 42
  const auto check = Check();
  EXPECT_EQ(check.exit_code, 2) << check.out;
  const std::string said =
      "7:42: http.token_env: QUELL_SECRETS_TOKEN is not set; push condition \"alerts\" needs the "
      "API token";
  EXPECT_TRUE(Says(check.out, said)) << check.out;
  const auto run = Run();
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Says(run.err, said)) << run.err;

  // Set, the same file passes.
  setenv("QUELL_SECRETS_TOKEN", "secrets-test-token-77", 1);  // NOLINT(concurrency-mt-unsafe)
  const auto ok = Check();
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_EQ(ok.out.find("secrets-test-token-77"), std::string::npos) << ok.out;
}

TEST_F(ConfigSecretsTest, APushConditionWithNoTokenAtAllIsAnErrorAtTheCondition) {
  Write("http: {listen: \"127.0.0.1:0\", open_reads: true}\n");
  const auto check = Check();
  EXPECT_EQ(check.exit_code, 2) << check.out;
  EXPECT_TRUE(
      Says(check.out, "4:11: conditions[0].type: push condition \"alerts\" needs the API token"))
      << check.out;
  EXPECT_NE(check.out.find("set http.token_env or http.token_file"), std::string::npos)
      << check.out;
  const auto run = Run();
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Says(run.err, "4:11: conditions[0].type: push condition")) << run.err;
}

TEST_F(ConfigSecretsTest, AnUnsetTokenWithNothingThatNeedsItIsAWarning) {
  std::ofstream(config_) << "store: sqlite:" << (dir_ / "quell.db").string() << "\n"
                         << "prometheus: {url: \"http://127.0.0.1:9\"}\n"
                         << "conditions:\n"
                         << "  - {name: up, type: prometheus, query: up, key: \"{instance}\", "
                            "above: 1}\n"
                         << kTokenLine;
  const auto check = Check();
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find("warning: " + config_ +
                           ":5:42: http.token_env: QUELL_SECRETS_TOKEN is not set: the HTTP API "
                           "refuses every request that needs the token (403)"),
            std::string::npos)
      << check.out;
}

TEST_F(ConfigSecretsTest, AckLinksWhoseSecretIsUnsetStopCheckAndRun) {
  setenv("QUELL_SECRETS_TOKEN", "secrets-test-token-77", 1);  // NOLINT(concurrency-mt-unsafe)
  Write(
      "http:\n"                                       // 7
      "  listen: \"127.0.0.1:0\"\n"                   // 8
      "  token_env: QUELL_SECRETS_TOKEN\n"            // 9
      "  public_url: https://quell.example.com\n"     // 10
      "  ack_link_secret_env: QUELL_SECRETS_ACK\n");  // 11
  const auto check = Check();
  EXPECT_EQ(check.exit_code, 2) << check.out;
  const std::string said =
      "11:24: http.ack_link_secret_env: QUELL_SECRETS_ACK is not set: ack links need it";
  EXPECT_TRUE(Says(check.out, said)) << check.out;
  const auto run = Run();
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Says(run.err, said)) << run.err;

  setenv("QUELL_SECRETS_ACK", "an-ack-link-secret-of-32-bytes-x", 1);  // NOLINT
  const auto ok = Check();
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
}

TEST_F(ConfigSecretsTest, CallbackSecretsThatAreUnsetStopCheckAndRunEvenWithoutDispatch) {
  setenv("QUELL_SECRETS_TOKEN", "secrets-test-token-77", 1);  // NOLINT(concurrency-mt-unsafe)
  Write(std::string(kTokenLine) +                             // 7
        "channels:\n"                                         // 8
        "  - name: chat\n"                                    // 9
        "    type: slack\n"                                   // 10
        "    webhook_url_env: QUELL_SECRETS_SLACK_HOOK\n"     // 11
        "    signing_secret_env: QUELL_SECRETS_SIGNING\n"     // 12
        "  - name: pager\n"                                   // 13
        "    type: pagerduty\n"                               // 14
        "    routing_key_env: QUELL_SECRETS_PD_KEY\n"         // 15
        "    webhook_secret_env: QUELL_SECRETS_PD_WEBHOOK\n"  // 16
        "defaults: {channels: [chat, pager]}\n");
  const auto check = Check();
  EXPECT_EQ(check.exit_code, 2) << check.out;
  EXPECT_TRUE(
      Says(check.out, "12:25: channels[0].signing_secret_env: QUELL_SECRETS_SIGNING is not set"))
      << check.out;
  EXPECT_TRUE(
      Says(check.out, "16:25: channels[1].webhook_secret_env: QUELL_SECRETS_PD_WEBHOOK is not set"))
      << check.out;
  // A `run` that sends nothing still serves the callbacks: it needs them too.
  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{{}, {"--no-dispatch"}}) {
    const auto run = Run(flags);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_TRUE(Says(run.err, "12:25: channels[0].signing_secret_env")) << run.err;
    EXPECT_TRUE(Says(run.err, "16:25: channels[1].webhook_secret_env")) << run.err;
  }
}

TEST_F(ConfigSecretsTest, AnOptionalChannelCredentialThatIsNamedMustBeSet) {
  setenv("QUELL_SECRETS_TOKEN", "secrets-test-token-77", 1);  // NOLINT(concurrency-mt-unsafe)
  Write(std::string(kTokenLine) +                             // 7
        "channels:\n"                                         // 8
        "  - name: mail\n"                                    // 9
        "    type: email\n"                                   // 10
        "    url: smtp://127.0.0.1:2525\n"                    // 11
        "    username: quell\n"                               // 12
        "    password_env: QUELL_SECRETS_SMTP\n"              // 13
        "    from: quell@example.com\n"                       // 14
        "    to: [ops@example.com]\n"                         // 15
        "  - name: phone\n"                                   // 16
        "    type: ntfy\n"                                    // 17
        "    url: https://ntfy.sh/quell-secrets\n"            // 18
        "    token_env: QUELL_SECRETS_NTFY\n"                 // 19
        "defaults: {channels: [mail, phone]}\n");
  const auto check = Check();
  EXPECT_EQ(check.exit_code, 2) << check.out;
  EXPECT_TRUE(Says(check.out, "13:19: channels[0].password_env: QUELL_SECRETS_SMTP is not set"))
      << check.out;
  EXPECT_TRUE(Says(check.out, "19:16: channels[1].token_env: QUELL_SECRETS_NTFY is not set"))
      << check.out;
  const auto run = Run();
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Says(run.err, "13:19: channels[0].password_env")) << run.err;
}

}  // namespace
}  // namespace quell
