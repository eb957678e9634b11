#include "quell/core/conditions/key_template.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace quell::core {
namespace {

KeyTemplate::Lookup From(const std::map<std::string, std::string>& fields) {
  return [&fields](std::string_view name) -> std::optional<std::string_view> {
    const auto it = fields.find(std::string(name));
    if (it == fields.end()) return std::nullopt;
    return std::string_view(it->second);
  };
}

TEST(KeyTemplateTest, RendersTheDefaultErrorGroupKey) {
  auto key = KeyTemplate::Parse("{tags.tenant}:{tags.agent_stage}:{error_group_id}");
  ASSERT_TRUE(key.ok()) << key.error().message;
  const std::map<std::string, std::string> fields = {
      {"tags.tenant", "acme"}, {"tags.agent_stage", "model-answer"}, {"error_group_id", "grp_7"}};
  EXPECT_EQ(key->Render(From(fields)), "acme:model-answer:grp_7");
  EXPECT_EQ(key->Fields(),
            (std::vector<std::string>{"tags.tenant", "tags.agent_stage", "error_group_id"}));
}

TEST(KeyTemplateTest, MissingFieldsRenderTheirFallback) {
  auto key = KeyTemplate::Parse("{tenant|no-tenant}:model-answer:{stage}");
  ASSERT_TRUE(key.ok());
  const std::map<std::string, std::string> fields = {{"stage", ""}};
  EXPECT_EQ(key->Render(From(fields)), "no-tenant:model-answer:-");
}

TEST(KeyTemplateTest, MissingFieldNamesTheFirstFieldWithoutAFallbackThatIsAbsentOrEmpty) {
  auto key = KeyTemplate::Parse("{tenant|no-tenant}:{stage}:{name}");
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->MissingField(From({{"stage", "prod"}, {"name", "up"}})), std::nullopt);
  EXPECT_EQ(key->MissingField(From({{"stage", ""}, {"name", "up"}})), "stage");
  EXPECT_EQ(key->MissingField(From({{"tenant", "t1"}, {"stage", "prod"}})), "name");
  EXPECT_EQ(key->MissingField(From({})), "stage");
  // A fallback written as "-" is still a fallback the operator chose.
  EXPECT_EQ(KeyTemplate::Parse("{stage|-}")->MissingField(From({})), std::nullopt);
}

TEST(KeyTemplateTest, ValuesCannotInjectTemplateSyntaxOrControlCharacters) {
  auto key = KeyTemplate::Parse("{a}:{b}");
  ASSERT_TRUE(key.ok());
  const std::map<std::string, std::string> fields = {{"a", "x}:{y"}, {"b", "line\nbreak"}};
  EXPECT_EQ(key->Render(From(fields)), "x_:_y:line_break");
}

TEST(KeyTemplateTest, RejectsMalformedTemplatesWithTheColumn) {
  for (const auto& [text, column] :
       std::map<std::string, std::string>{{"{tenant", "column 1"},
                                          {"tenant}", "column 7"},
                                          {"a:{}", "column 3"},
                                          {"{a{b}}", "column 1"},
                                          {"constant-key", "column 1"}}) {
    auto key = KeyTemplate::Parse(text);
    ASSERT_FALSE(key.ok()) << text;
    EXPECT_EQ(key.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(key.error().message.find(column), std::string::npos) << key.error().message;
  }
}

TEST(KeyTemplateTest, AppendToExtendsTheBuffer) {
  auto key = KeyTemplate::Parse("k:{a}");
  ASSERT_TRUE(key.ok());
  std::string out = "prefix/";
  const std::map<std::string, std::string> fields = {{"a", "1"}};
  key->AppendTo(out, From(fields));
  EXPECT_EQ(out, "prefix/k:1");
}

// The personal data in keys: a tenant tag holding an e-mail address was the key in
// clear, and so every subject, log line and row.
TEST(KeyTemplateTest, PersonalDataInAValueBecomesAStablePseudonym) {
  auto key = KeyTemplate::Parse("{tags.tenant}:{tags.agent_stage}:{error_group_id}");
  ASSERT_TRUE(key.ok());
  const std::map<std::string, std::string> alice = {{"tags.tenant", "alice@example.com"},
                                                    {"tags.agent_stage", "refund"},
                                                    {"error_group_id", "grp_7"}};
  std::map<std::string, std::string> bob = alice;
  bob["tags.tenant"] = "bob@example.com";
  const std::string alice_key = key->Render(From(alice));
  EXPECT_EQ(alice_key.find("alice"), std::string::npos) << alice_key;
  EXPECT_EQ(alice_key.find('@'), std::string::npos) << alice_key;
  // "pii-" and the first 6 bytes of sha256("alice@example.com").
  EXPECT_EQ(alice_key, "pii-ff8d9819fc0e:refund:grp_7");
  EXPECT_EQ(key->Render(From(alice)), alice_key);
  EXPECT_NE(key->Render(From(bob)), alice_key);

  std::map<std::string, std::string> card = alice;
  card["tags.tenant"] = "4111 1111 1111 1111";
  EXPECT_EQ(key->Render(From(card)).find("4111"), std::string::npos);
}

// A key is in every subject, log line, row and URL: a field named like a credential, or a
// secret inside a value, never reaches it; both stay deterministic.
TEST(KeyTemplateTest, CredentialsNeverReachTheKeyOrTheLabels) {
  auto key = KeyTemplate::Parse("{labels.alertname}:{labels.api_key}:{labels.dsn}");
  ASSERT_TRUE(key.ok());
  const std::map<std::string, std::string> fields = {
      {"labels.alertname", "DbDown"},
      {"labels.api_key", "k3y-value"},
      {"labels.dsn", "postgresql://app:s3cret@db/app"}};
  EXPECT_EQ(key->Render(From(fields)), "DbDown:[secret]:postgresql://app:[secret]@db/app");
  const Labels labels = key->LabelsOf(From(fields));
  EXPECT_EQ(labels, (Labels{{"labels.alertname", "DbDown"},
                            {"labels.api_key", "[secret]"},
                            {"labels.dsn", "postgresql://app:[secret]@db/app"}}));
  // Labels redacted once (as a push redacts them) render the same key again.
  const std::map<std::string, std::string> redacted(labels.begin(), labels.end());
  EXPECT_EQ(key->Render(From(redacted)), key->Render(From(fields)));
}

TEST(KeyTemplateTest, OrdinaryValuesAndNumericGroupIdsStayReadable) {
  auto key = KeyTemplate::Parse("{tags.tenant}:{tags.release}:{error_group_id}");
  ASSERT_TRUE(key.ok());
  const std::map<std::string, std::string> fields = {
      {"tags.tenant", "acme"}, {"tags.release", "2026.12.3"}, {"error_group_id", "4412345678901"}};
  EXPECT_EQ(key->Render(From(fields)), "acme:2026.12.3:4412345678901");
}

// The 10 MB key: a source's tag value is bounded like an apply line's key.
TEST(KeyTemplateTest, ALongKeyIsCutAndKeptDistinctByItsDigest) {
  auto key = KeyTemplate::Parse("{tags.tenant}:{error_group_id}");
  ASSERT_TRUE(key.ok());
  key->set_max_bytes(64);
  const std::map<std::string, std::string> huge = {{"tags.tenant", std::string(1'000'000, 'a')},
                                                   {"error_group_id", "grp_1"}};
  std::map<std::string, std::string> other = huge;
  other["error_group_id"] = "grp_2";
  const std::string rendered = key->Render(From(huge));
  EXPECT_EQ(rendered.size(), 64U);
  EXPECT_EQ(rendered.substr(0, 50), std::string(50, 'a'));
  EXPECT_EQ(rendered.substr(50, 2), "~h");
  EXPECT_EQ(key->Render(From(huge)), rendered);
  EXPECT_NE(key->Render(From(other)), rendered);
  const std::map<std::string, std::string> short_key = {{"tags.tenant", "acme"},
                                                        {"error_group_id", "grp_1"}};
  EXPECT_EQ(key->Render(From(short_key)), "acme:grp_1");
}

}  // namespace
}  // namespace quell::core

namespace quell::core {
namespace {

TEST(KeyTemplateLabelsTest, NamedAsTheTemplateNamesThemSortedAndOnlyWhatWasSent) {
  const KeyTemplate t =
      KeyTemplate::Parse("{tags.tenant}:{stage|none}:{region}:{tags.tenant}").value();
  const Labels labels = t.LabelsOf([](std::string_view field) -> std::optional<std::string_view> {
    if (field == "tags.tenant") return "a}b";
    if (field == "stage") return "answer";
    return std::nullopt;
  });
  EXPECT_EQ(labels, (Labels{{"stage", "answer"}, {"tenant", "a_b"}}));
}

// The labels read back from a rendered key are the labels rendered on their own: redacted,
// sanitized, named and sorted alike; a key cut to its bound renders them again.
TEST(KeyTemplateLabelsTest, LabelsFromTheRenderedKeyAreTheLabelsRenderedAlone) {
  KeyTemplate t = KeyTemplate::Parse(
                      "pre-{tags.tenant}:{stage|none}:{region}:{tags.api_key}:{tags.tenant}:"
                      "{user}-{error_group_id}")
                      .value();
  const std::map<std::string, std::string> fields = {{"tags.tenant", "a}b"},
                                                     {"stage", "answer"},
                                                     {"tags.api_key", "ifr_0123456789abcdefABCDEF"},
                                                     {"user", "jane.doe@example.com"},
                                                     {"error_group_id", "grp_7"}};
  for (const size_t bound : {size_t{4096}, size_t{40}}) {
    t.set_max_bytes(bound);
    std::string out = "before|";
    KeyTemplate::Rendered rendered;
    t.AppendTo(out, From(fields), rendered);
    EXPECT_EQ(out, "before|" + t.Render(From(fields))) << bound;
    EXPECT_EQ(rendered.whole, bound == 4096);
    EXPECT_EQ(t.LabelsOf(out, rendered, From(fields)), t.LabelsOf(From(fields))) << bound;
  }
}

}  // namespace
}  // namespace quell::core
