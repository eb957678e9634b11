// The channel registry walked kind by kind: every type reads a minimal block of its own keys and
// builds its channel, and the types it holds are the ones docs/channels.md documents.
#include "quell/adapters/channels/channel_registry.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "../../app/fake_clock.h"
#include "quell/adapters/channels/channel_builder.h"
#include "quell/adapters/config/yaml_reader.h"
#include "quell/adapters/templates/group_message.h"
#include "test_paths.h"

namespace quell::channels {
namespace {

// A minimal valid block per type: only the type's own keys (name and type are the loader's).
// A kind added to the registry without a block here fails MinimalBlocksCoverEveryKind.
const std::map<std::string, std::string>& MinimalBlocks() {
  static const auto* blocks = new std::map<std::string, std::string>{
      {"webhook", "{url: \"https://hooks.test/quell\", secret_env: SECRET}"},
      {"slack", "{bot_token_env: TOKEN, channel: C0ALERTS, signing_secret_env: SECRET}"},
      {"email", "{url: \"smtp://mail.test:587\", from: \"quell <a@b.test>\", to: [ops@b.test]}"},
      {"sms",
       "{account_sid: AC0123, auth_token_env: TOKEN, from: \"+15005550006\", "
       "to: \"+15005550007\"}"},
      {"pagerduty", "{routing_key_env: TOKEN, webhook_secret_env: SECRET}"},
      {"opsgenie", "{api_key_env: TOKEN}"},
      {"google_chat", "{url: \"https://chat.googleapis.com/v1/spaces/A/messages?key=k\"}"},
      {"ntfy", "{url: \"https://ntfy.sh/quell-ops\"}"},
      {"telegram", "{chat_id: \"-1001234567890\", token_env: TOKEN}"},
      {"teams", "{url_env: HOOK_URL}"},
      {"discord", "{url: \"https://discord.com/api/webhooks/1/t0k\"}"},
      {"mattermost", "{url: \"https://chat.example.com/hooks/k3y\"}"},
  };
  return *blocks;
}

struct Read {
  std::optional<ChannelSettings> settings;
  std::vector<std::string> errors;
  std::vector<std::string> unresolved;
};

Read ReadBlock(const std::string& type, const std::string& block) {
  config::YamlContext context;
  context.file = "registry.yaml";
  context.env = [](std::string_view name) -> std::optional<std::string> {
    if (name == "SECRET") return "0123456789abcdef-secret";
    if (name == "TOKEN") return "xoxb-0123456789";
    if (name == "HOOK_URL") return "https://teams.test/workflows/1?sig=s";
    return std::nullopt;
  };
  Read read;
  std::vector<std::string> callbacks;
  std::vector<std::string> warnings;
  const std::string name = "ops";
  config::MapReader item(context, YAML::Load(block), "channels[0]");
  ChannelReading reading{.item = item,
                         .dir = ".",
                         .name = name,
                         .unresolved = read.unresolved,
                         .callbacks = callbacks,
                         .warnings = warnings};
  read.settings = ReadChannelSettings(type, reading);
  item.Finish();
  read.errors = context.errors;
  return read;
}

// The `type` column of docs/channels.md's "Which channel does what" table.
std::set<std::string> DocumentedTypes() {
  std::ifstream in(testing::SourcePath("docs/channels.md"));
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t start = doc.find("## Which channel does what");
  const size_t end = doc.find("\n## ", start + 1);
  EXPECT_NE(start, std::string::npos) << "docs/channels.md lost its \"Which channel does what\"";
  // The rows after the table's header ("| `type` | ...") and its "|---|" line.
  const size_t rows = doc.find("|---|", start);
  const std::string section = doc.substr(rows, end - rows);
  std::set<std::string> types;
  const std::regex row(R"(\n\| `([a-z_]+)` \|)");
  for (auto it = std::sregex_iterator(section.begin(), section.end(), row);
       it != std::sregex_iterator(); ++it) {
    types.insert((*it)[1].str());
  }
  return types;
}

TEST(ChannelRegistryTest, EveryKindReadsAMinimalBlockAndBuildsItsChannel) {
  testing::FakeClock clock{core::WallTime{}};
  for (const std::string_view type : ChannelTypeNames()) {
    SCOPED_TRACE(std::string(type));
    const auto block = MinimalBlocks().find(std::string(type));
    ASSERT_NE(block, MinimalBlocks().end()) << "no minimal block for this type in this test";
    Read read = ReadBlock(std::string(type), block->second);
    ASSERT_TRUE(read.settings.has_value());
    EXPECT_TRUE(read.errors.empty()) << read.errors.front();
    EXPECT_TRUE(read.unresolved.empty());
    EXPECT_EQ(ChannelTypeOf(*read.settings), type);
    // The registry's default agrees with the renderer's, which a renderer without a config uses.
    EXPECT_EQ(DefaultGroupLimitOf(*read.settings), templates::DefaultGroupLimit(type));
    ChannelBuild build;
    build.name = "ops";
    build.group_limit = DefaultGroupLimitOf(*read.settings);
    build.link_prefix = "https://quell.test/incidents/";
    build.clock = &clock;
    auto built = BuildChannel(*read.settings, build);
    ASSERT_TRUE(built.ok()) << built.error().message;
    const bool blocking = std::holds_alternative<std::unique_ptr<core::Channel>>(*built);
    EXPECT_EQ(blocking, type == "email");
  }
}

TEST(ChannelRegistryTest, MinimalBlocksCoverEveryKind) {
  const std::vector<std::string_view> names = ChannelTypeNames();
  std::set<std::string> kinds(names.begin(), names.end());
  EXPECT_EQ(kinds.size(), names.size()) << "two kinds share a type name";
  std::set<std::string> blocks;
  for (const auto& [type, block] : MinimalBlocks()) blocks.insert(type);
  EXPECT_EQ(kinds, blocks);
}

TEST(ChannelRegistryTest, TheRegisteredTypesAreTheDocumentedOnes) {
  const std::vector<std::string_view> names = ChannelTypeNames();
  const std::set<std::string> kinds(names.begin(), names.end());
  EXPECT_EQ(kinds, DocumentedTypes())
      << "each kind in channel_registry.h needs its row in docs/channels.md's \"Which channel "
         "does what\", and each row a kind";
}

TEST(ChannelRegistryTest, AnUnknownTypeReadsNothing) {
  EXPECT_FALSE(ReadBlock("pigeon", "{}").settings.has_value());
}

TEST(ChannelRegistryTest, CallbackSecretsAndPacingComeFromTheirKinds) {
  const auto slack = ReadBlock("slack", MinimalBlocks().at("slack"));
  const auto pagerduty = ReadBlock("pagerduty", MinimalBlocks().at("pagerduty"));
  const auto sms = ReadBlock("sms", MinimalBlocks().at("sms"));
  EXPECT_EQ(CallbackSecretOf(*slack.settings, CallbackRoute::kSlackInteractivity),
            "0123456789abcdef-secret");
  EXPECT_EQ(CallbackSecretOf(*slack.settings, CallbackRoute::kPagerDutyWebhook), "");
  EXPECT_EQ(CallbackSecretOf(*pagerduty.settings, CallbackRoute::kPagerDutyWebhook),
            "0123456789abcdef-secret");
  EXPECT_TRUE(PacingOf(*sms.settings).has_value());
  EXPECT_EQ(MaxSegmentsOf(*sms.settings), 2U);
  EXPECT_FALSE(PacingOf(*slack.settings).has_value());
  EXPECT_FALSE(MaxSegmentsOf(*pagerduty.settings).has_value());
}

}  // namespace
}  // namespace quell::channels
