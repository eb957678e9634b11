#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "nlohmann_reference_codec.h"
#include "quell/adapters/jsonl/json_tree.h"
#include "quell/adapters/jsonl/message_codec.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/delivery/tenant_budget.h"

// DecodeMessage reads payloads with simdjson (json_tree.h) where it once built nlohmann-json's
// DOM; these tests hold every field it reads, and every string it prints back, to what the
// nlohmann reading gave (nlohmann_reference_codec), for the payloads quell writes, odd ones
// written by hand, and a fixed set of mutations of all of them.
namespace quell::jsonl {
namespace {

constexpr core::OutboxRowKind kKinds[] = {core::OutboxRowKind::kIncident,
                                          core::OutboxRowKind::kGroup, core::OutboxRowKind::kDigest,
                                          core::OutboxRowKind::kDeadLetter};

// Decodes `payload` as each kind of row both ways; the first difference, or "".
std::string Difference(const std::string& payload) {
  for (const core::OutboxRowKind kind : kKinds) {
    core::OutboxRow row;
    row.key = "k";
    row.kind = kind;
    row.payload = payload;
    const std::string expected = reference::DescribeMessage(reference::DecodeMessage(row));
    const std::string actual = reference::DescribeMessage(DecodeMessage(row));
    if (expected != actual) {
      return "as " + std::string(core::OutboxRowKindName(kind)) + "\n--- nlohmann\n" + expected +
             "--- simdjson\n" + actual;
    }
  }
  return {};
}

core::Incident OddIncident() {
  core::Incident in;
  in.key = "acme:checkout \"q\" \\ /\n\t\x01\x1f\x7f \xC3\xA9 \xE2\x80\xA8 \xF0\x9F\x98\x80";
  in.condition = "c";
  in.generation = 3;
  in.version = 7;
  in.status = core::IncidentStatus::kOpen;
  in.opened_at = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  in.first_seen_at = *core::ParseRfc3339("2026-12-02T08:58:10Z");
  in.last_seen_at = *core::ParseRfc3339("2026-12-02T09:05:00Z");
  in.event_count = 4;
  in.labels = {{"z", "\xE2\x80\xA9"}, {"a", "b"}, {"\xC3\xA9", "x"}};
  in.upstream_count = 12;
  in.upstream_count_since_previous_message = 4;
  in.recent_evidence = {
      R"({"title":"T","count":7,"tags":{"b":"1","a":2,"c":"3"},"level":"error"})",
      R"({"metric":"m","value":0.1,"threshold":1e300,"recovery":-0.0,"direction":"below"})",
      R"({"metric":"m","value":null,"threshold":5e-324,"recovery":"x"})",
      R"({"value":1E2,"threshold":-7,"recovery":123456789012345678901234567890})",
      R"({"value":18446744073709551615,"threshold":-9223372036854775808,"recovery":1e-7})",
      R"({"annotations":{"message":"old","description":"d"},"status":"resolved"})",
      R"({"title":"t","annotations":{},"status":"firing"})",
      R"("\u00e9\ud83d\ude00")",
      R"([{"b":[],"a":{}},-0,0.5,false])",
      "null",
      "12",
      "-3"};
  return in;
}

std::vector<std::string> Corpus() {
  std::vector<std::string> corpus;
  for (const char* transition :
       {"open", "renotify", "resolve", "late_open", "held_open", "pushed", "ack"}) {
    corpus.push_back(templates::SamplePayload(transition));
  }
  const JsonPayloadEncoder encoder;
  const core::Incident odd = OddIncident();
  const core::WallTime now = *core::ParseRfc3339("2026-12-02T11:00:00Z");
  std::string payload;
  encoder.Encode(odd, core::TransitionKind::kRenotify, payload);
  corpus.push_back(payload);
  encoder.EncodeLateOpen(odd, now, payload);
  corpus.push_back(payload);
  encoder.EncodeOpenAfterMaintenance(odd, "nightly \"db\"", now, payload);
  corpus.push_back(payload);
  encoder.EncodeOpenAfterInhibition(odd, "acme:provider-down", now, payload);
  corpus.push_back(payload);

  // The group, digest and dead-letter payloads the core writes.
  core::OutboxRow group = core::MakeGroupRow("ops", "condition=agent-errors,tenant=acme", 4,
                                             core::TransitionKind::kOpen, 2, now, 9);
  corpus.push_back(group.payload);
  std::vector<core::OutboxRow> members(2);
  members[0].payload = templates::SamplePayload("open");
  members[1].payload = corpus[7];
  group.payload = core::GroupPayload(group, members, core::GroupStanding{1, 2});
  corpus.push_back(group.payload);
  corpus.push_back(core::MakeDigestRow("acme", "ops", core::HourWindow(now), now).payload);
  core::OutboxRow notice =
      core::MakeDeadLetterRow("ops", core::DeadLetterWindowAt(now, std::chrono::minutes(5)), now);
  core::OutboxRow dead;
  dead.key = "acme:\xC3\xA9";
  dead.channel = "ops";
  dead.last_error = "webhook: HTTP 500 \"no\"\n";
  const std::vector<core::OutboxRow> died = {dead, dead};
  notice.payload = core::DeadLetterPayload(notice, died, 1);
  corpus.push_back(notice.payload);

  // Odd numbers: "-0" is signed for nlohmann, integers past 64 bits doubles, 1e2 no integer.
  for (
      const char* odd_payload :
      {R"({"key":"k -0","generation":-0,"version":-1,"event_count":18446744073709551615,)"
       R"("open_for_seconds":18446744073709551616,"upstream_count":12345678901234567890123,)"
       R"("upstream_count_since_last_message":-0})",
       R"({"key":"k","generation":1e2,"version":1.0,"event_count":-9223372036854775809,)"
       R"("open_for_seconds":-0,"upstream_count":"-0","evidence":[{"count":-0},{"count":0},)"
       R"({"count":1.0},{"count":"7"},{"count":99999999999999999999},)"
       R"({"value":-0,"threshold":-0.0},{"value":1e-400,"threshold":0.30000000000000004}]})",
       R"({"key":"k","evidence":[{"value":1.7976931348623157e308,"threshold":1e22},)"
       R"({"value":123456.5,"threshold":1234567.0,"recovery":0.000012345}]})",
       R"({"key":"k","generation":1e400})", R"({"key":"k","generation":01})",
       R"({"key":"k","n":[-01]})",
       // Repeated names: nlohmann keeps the last.
       R"({"key":"a","key":"b","labels":{"z":"1","a":"2","z":"3"},"evidence":[{"b":1,"a":2,"b":3}]})",
       R"({"key":"a","key":5})", R"({"key":5,"key":"a"})",
       // Escapes and text.
       R"({"key":"\u00e9\u2028\u2029\ud83d\ude00\"\\\/\b\f\n\r\t\u0001\u001f\u007f\u0000","evidence":["\u0000x"]})",
       "{\"key\":\"\xC3\xA9\xF0\x9F\x98\x80\xE2\x80\xA8\x7f\"}", "{\"key\":\"\xff\"}",
       "{\"key\":\"\xC0\xAF\"}", "{\"key\":\"\xED\xA0\x80\"}", "{\"key\":\"\xF4\x90\x80\x80\"}",
       "{\"key\":\"a\tb\"}", R"({"key":"\ud800"})", R"({"key":"\udc00x"})",
       R"({"key":"\ud800\u0041"})", R"({"key":"\u00G0"})", R"({"key":"\x"})",
       // Framing: a byte order mark, whitespace, a NUL ending nlohmann's input, trailers.
       "\xEF\xBB\xBF{\"key\":\"bom\"}", "\xEF\xBB{\"key\":\"half\"}",
       " \t\r\n{\"key\" : \"ws\" } \n", "\f{\"key\":\"ff\"}", "{\"key\":\"v\"}\v",
       "{\"key\":\"k\"} x", "{\"key\":\"k\"}{}", "{\"key\":\"k\",}", "[1,]", "{\"key\":tru}",
       "{\"key\":nulll}",
       // Odd types and shapes.
       R"({"key":"k","evidence":"none","labels":[1],"opened_in_shadow":1,"condition":null})",
       R"({"key":"k","opened_in_shadow":false,"status":"","condition":"","transition":""})",
       R"({"key":"k","evidence":[],"labels":{},"tags":{"a":"b"}})", "[]", "\"s\"", "1", "null", "",
       "{}", "{\"a\":1,\"b\":2}", "{\"digest\":{\"b\":1,\"a\":[1.5,\"x\",{}]}}",
       "{\"dead_letter\":1,\"dead_letter\":{\"z\":[true,null]}}",
       R"({"group":{"key":"k","counts":{"open":-0,"members":2.0,"z":"1","a":3},)"
       R"("standing":{"open":1,"silenced":-2},"members":[{"key":"m","labels":{}}],)"
       R"("sequence":-0,"episode":1.5,"open_after":"3","labels":{"b":"c","a":1}}})",
       R"({"group":{"members":[{"key":"m"},{"nokey":1}]}})", R"({"group":[]})",
       R"({"group":{"members":{}}})"}) {
    corpus.emplace_back(odd_payload);
  }
  corpus.push_back(std::string("{\"key\":\"nul\"}\0trailing", 23));
  corpus.push_back(std::string("{\"key\":\"in\0string\"}", 19));
  // Nested deeper than simdjson's default depth (1024), but within JsonTree::kMaxDepth.
  corpus.push_back(R"({"key":"deep","evidence":[)" + std::string(1500, '[') + "1" +
                   std::string(1500, ']') + "]}");
  return corpus;
}

TEST(MessageCodecReferenceTest, ReadsTheCorpusAsNlohmannDid) {
  for (const std::string& payload : Corpus()) {
    EXPECT_EQ(Difference(payload), "") << payload;
  }
}

// Mutations from a fixed seed (no randomness between runs): bytes replaced, inserted, removed,
// slices repeated (repeated names), the text cut short. Each mutant is read both ways.
TEST(MessageCodecReferenceTest, ReadsMutatedPayloadsAsNlohmannDid) {
  const std::string alphabet = std::string("{}[],:\"\\-+0123456789.eEntrfalsu \t\n/b") +
                               std::string("\0\x01\x7f\xC3\xA9\xE2\x80\xA8\xEF\xBB\xBF\xff", 13);
  std::mt19937 random(20261208);
  const auto pick = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(random() % n); };
  size_t mutants = 0;
  for (const std::string& original : Corpus()) {
    for (int round = 0; round < 150; ++round) {
      std::string payload = original;
      const int edits = 1 + static_cast<int>(pick(3));
      for (int e = 0; e < edits; ++e) {
        const size_t at = pick(payload.size() + 1);
        switch (pick(5)) {
          case 0:
            if (at < payload.size()) payload[at] = alphabet[pick(alphabet.size())];
            break;
          case 1:
            payload.insert(at, 1, alphabet[pick(alphabet.size())]);
            break;
          case 2:
            if (at < payload.size()) payload.erase(at, 1 + pick(4));
            break;
          case 3: {
            const size_t length = pick(40);
            const size_t from = pick(payload.size() + 1);
            payload.insert(at, payload.substr(from, length));
            break;
          }
          default:
            payload.resize(at);
            break;
        }
      }
      ++mutants;
      const std::string difference = Difference(payload);
      ASSERT_EQ(difference, "") << "mutant " << mutants << ": " << payload;
    }
  }
  EXPECT_GT(mutants, 1000u);
}

// The one difference kept: nesting past JsonTree::kMaxDepth is refused (nlohmann read it).
TEST(MessageCodecReferenceTest, RefusesNestingPastTheMaximumDepth) {
  JsonTree tree;
  const size_t depth = JsonTree::kMaxDepth + 1;
  EXPECT_FALSE(tree.Parse(std::string(depth, '[') + std::string(depth, ']')));
  EXPECT_TRUE(tree.Parse(std::string(depth - 1, '[') + std::string(depth - 1, ']')));
}

TEST(JsonTreeTest, KeepsNlohmannsValueModel) {
  JsonTree tree;
  ASSERT_TRUE(tree.Parse(R"({"b":1,"a":-0,"c":[1.0,1e300,0.1,-5],"b":"x","d":1e2})"));
  const JsonValue root = tree.root();
  ASSERT_EQ(root.size(), 4u);
  EXPECT_EQ(root.name(0), "a");
  EXPECT_TRUE(root.find("a").is_number_integer());
  EXPECT_FALSE(root.find("a").is_number_unsigned());
  EXPECT_EQ(root.find("b").string(), "x");
  EXPECT_FALSE(root.find("d").is_number_integer());
  EXPECT_EQ(root.Compact(), R"({"a":0,"b":"x","c":[1.0,1e+300,0.1,-5],"d":100.0})");
  EXPECT_FALSE(root.find("missing").present());
  EXPECT_FALSE(tree.Parse("{"));
  EXPECT_FALSE(tree.root().present());
}

// A thread's tree lives as long as the thread: the buffers one large payload needed are not
// kept for the small ones after it.
TEST(JsonTreeTest, StartsAfreshAfterALargeDocument) {
  JsonTree tree;
  const std::string large =
      R"({"key":"large","evidence":[")" + std::string(2 * JsonTree::kKeptBytes, 'x') + R"("]})";
  ASSERT_TRUE(tree.Parse(large));
  EXPECT_GT(tree.capacity(), JsonTree::kKeptBytes);
  EXPECT_EQ(tree.root().find("evidence").at(0).string().size(), 2 * JsonTree::kKeptBytes);
  ASSERT_TRUE(tree.Parse(R"({"key":"small"})"));
  EXPECT_LE(tree.capacity(), JsonTree::kKeptBytes);
  EXPECT_EQ(tree.root().find("key").string(), "small");
  EXPECT_EQ(Difference(large), "");
}

}  // namespace
}  // namespace quell::jsonl
