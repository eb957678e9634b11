#include "quell/adapters/jsonl/message_codec.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"
#include "quell/core/delivery/tenant_budget.h"

// The payload is read once per claimed row (DecodeMessage) and the channels that send parts of
// it as structured data print them from the typed message. These tests hold the printed parts
// to what nlohmann-json printed when each channel parsed the payload itself, byte for byte.
namespace quell::jsonl {
namespace {

using nlohmann::json;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

core::Incident RichIncident() {
  core::Incident in;
  in.key = "acme:checkout \"q\"\n\xE2\x80\xA8";
  in.condition = "agent-errors";
  in.generation = 3;
  in.version = 7;
  in.status = core::IncidentStatus::kOpen;
  in.opened_at = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  in.first_seen_at = *core::ParseRfc3339("2026-12-02T08:58:10Z");
  in.last_seen_at = *core::ParseRfc3339("2026-12-02T09:05:00Z");
  in.event_count = 4;
  in.labels = {{"stage", "an\"swer"}, {"tenant", "t\x01"}, {"zeta", "\xC3\xA9"}};
  in.upstream_count = 12;
  in.upstream_count_since_previous_message = 4;
  in.recent_evidence = {
      R"({"title":"TypeError","message":"cannot read 'id'","count":"12","tags":{"tenant":"acme"},"last_seen":"2026-12-02T09:04:00Z"})",
      R"({"metric":"error_rate","value":0.31,"threshold":0.2,"recovery":0.1,"direction":"above"})",
      R"({"annotations":{"summary":"Disk full","runbook_url":"https://r.example/x y"},"status":"firing","startsAt":"2026-12-02T08:55:00.123Z","labels":{"a":"b"}})",
      R"("a plain string")", R"([1,2.5,null,true])"};
  return in;
}

std::vector<std::string> SnapshotPayloads() {
  const JsonPayloadEncoder encoder;
  const core::Incident rich = RichIncident();
  const core::WallTime now = *core::ParseRfc3339("2026-12-02T11:00:00Z");
  std::vector<std::string> out(4);
  encoder.Encode(rich, core::TransitionKind::kRenotify, out[0]);
  encoder.EncodeLateOpen(rich, now, out[1]);
  encoder.EncodeOpenAfterMaintenance(rich, "nightly \"db\"", now, out[2]);
  encoder.EncodeOpenAfterInhibition(rich, "acme:provider-down", now, out[3]);
  core::Incident bare;
  bare.key = "k";
  out.emplace_back();
  encoder.Encode(bare, core::TransitionKind::kResolve, out.back());
  // Rows an older quell wrote: no labels, a count as text, a severity of its own.
  out.emplace_back(R"({"key":"old","condition":"c","generation":1,"version":1,"transition":"open",)"
                   R"("status":"open","event_count":2,"severity":"warning","upstream_count":"9",)"
                   R"("evidence":[{"title":"T","tags":{"tenant":"t1"}}]})");
  out.emplace_back(R"({"key":"minimal"})");
  return out;
}

TEST(MessageCodecTest, ASnapshotPrintsAsNlohmannPrintedTheParsedPayload) {
  for (const std::string& payload : SnapshotPayloads()) {
    core::OutboxRow row;
    row.key = "k";
    row.payload = payload;
    const core::Result<core::Message> message = DecodeMessage(row);
    ASSERT_TRUE(message.ok()) << payload;
    EXPECT_EQ(message->kind, core::Message::Kind::kIncident);
    EXPECT_EQ(SnapshotJson(message->incident), Dump(json::parse(payload))) << payload;
    // With fields merged in, as PagerDuty's custom_details has them.
    json expected = json::parse(payload);
    expected["kind"] = "incident";
    expected["transition"] = "open";
    expected["quell_idempotency_key"] = "q1-x";
    EXPECT_EQ(SnapshotJson(message->incident, {{"kind", JsonText("incident")},
                                               {"transition", JsonText("open")},
                                               {"quell_idempotency_key", JsonText("q1-x")}}),
              Dump(expected));
  }
}

TEST(MessageCodecTest, ReadsTheFieldsMessagesUse) {
  std::string payload;
  JsonPayloadEncoder().EncodeOpenAfterInhibition(
      RichIncident(), "acme:provider-down", *core::ParseRfc3339("2026-12-02T11:00:00Z"), payload);
  const core::Result<core::IncidentSnapshot> s = DecodeSnapshot(payload);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->key, RichIncident().key);
  EXPECT_EQ(s->generation, 3u);
  EXPECT_EQ(s->held_behind, "acme:provider-down");
  EXPECT_EQ(s->open_for_seconds, 7200u);
  EXPECT_EQ(s->upstream_count, "12");
  ASSERT_EQ(s->evidence.size(), 5u);
  EXPECT_EQ(s->evidence[0].title, "TypeError");
  EXPECT_EQ(s->evidence[0].count, "12");
  EXPECT_EQ(s->evidence[0].tags.size(), 1u);
  EXPECT_TRUE(s->evidence[1].is_metric);
  EXPECT_EQ(s->evidence[1].value, "0.31");
  EXPECT_EQ(s->evidence[1].recovery, "0.1");
  EXPECT_TRUE(s->evidence[2].is_alert);
  EXPECT_EQ(s->evidence[2].summary, "Disk full");
  EXPECT_EQ(s->evidence[3].text, "a plain string");
  EXPECT_FALSE(s->evidence[4].is_object);
  EXPECT_EQ(s->evidence[4].json, "[1,2.5,null,true]");
}

TEST(MessageCodecTest, AGroupPrintsAsNlohmannPrintedItWithoutItsMembers) {
  const core::WallTime now = *core::ParseRfc3339("2026-12-02T11:00:00Z");
  core::OutboxRow group = core::MakeGroupRow("ops", "condition=agent-errors,tenant=acme", 4,
                                             core::TransitionKind::kOpen, 2, now, 9);
  std::vector<core::OutboxRow> members(2);
  members[0].transition = core::TransitionKind::kOpen;
  members[1].transition = core::TransitionKind::kResolve;
  JsonPayloadEncoder().Encode(RichIncident(), core::TransitionKind::kOpen, members[0].payload);
  members[1].payload = R"({"key":"other","transition":"resolve"})";
  for (const auto& standing :
       {std::optional<core::GroupStanding>(), std::optional(core::GroupStanding{1, 2})}) {
    group.payload = core::GroupPayload(group, members, standing);
    const core::Result<core::Message> message = DecodeMessage(group);
    ASSERT_TRUE(message.ok()) << message.error().message;
    ASSERT_EQ(message->kind, core::Message::Kind::kGroup);
    json expected = json::parse(group.payload)["group"];
    const json listed = expected["members"];
    expected.erase("members");
    expected["members_more"] = 0;
    EXPECT_EQ(GroupJson(message->group, {{"members_more", "0"}}), Dump(expected));
    ASSERT_EQ(message->group.members.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(SnapshotJson(message->group.members[i]), Dump(listed[i]));
    }
    EXPECT_EQ(message->group.episode, 9u);
  }
  // As MakeGroupRow stores it, before the dispatcher adds counts and members.
  const core::OutboxRow stored =
      core::MakeGroupRow("ops", "condition=x", 1, core::TransitionKind::kOpen, 0, now, 0);
  const core::Result<core::Message> bare = DecodeMessage(stored);
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(GroupJson(bare->group), Dump(json::parse(stored.payload)["group"]));
}

TEST(MessageCodecTest, NoticesKeepTheirOneMember) {
  const core::WallTime now = *core::ParseRfc3339("2026-12-02T11:00:00Z");
  const core::OutboxRow digest = core::MakeDigestRow("acme", "ops", core::HourWindow(now), now);
  core::Result<core::Message> message = DecodeMessage(digest);
  ASSERT_TRUE(message.ok());
  EXPECT_EQ(message->kind, core::Message::Kind::kDigest);
  EXPECT_EQ(NoticeJson(*message), Dump(json::parse(digest.payload)));

  core::OutboxRow notice =
      core::MakeDeadLetterRow("ops", core::DeadLetterWindowAt(now, std::chrono::minutes(5)), now);
  core::OutboxRow dead;
  dead.key = "acme:x";
  dead.channel = "ops";
  dead.last_error = "webhook: HTTP 500 \"no\"";
  const std::vector<core::OutboxRow> died = {dead};
  notice.payload = core::DeadLetterPayload(notice, died);
  message = DecodeMessage(notice);
  ASSERT_TRUE(message.ok());
  EXPECT_EQ(message->kind, core::Message::Kind::kDeadLetter);
  EXPECT_EQ(message->notice_name, "dead_letter");
  json expected = json::parse(notice.payload);
  expected["kind"] = "dead_letter";
  EXPECT_EQ(NoticeJson(*message, {{"kind", JsonText("dead_letter")}}), Dump(expected));
}

TEST(MessageCodecTest, RefusesAPayloadThatIsNoSnapshot) {
  core::OutboxRow row;
  row.key = "acme:x";
  for (const char* payload : {"[1,2", R"({"key":"k")", "", R"({"status":"open"})", "[]"}) {
    row.payload = payload;
    const core::Result<core::Message> message = DecodeMessage(row);
    ASSERT_FALSE(message.ok()) << payload;
    EXPECT_EQ(message.error().code, core::ErrorCode::kInvalidArgument);
  }
  row.key = "{group}:condition=x";
  row.kind = core::OutboxRowKind::kGroup;
  row.payload = R"({"group":{"key":"condition=x","members":[{"status":"open"}]}})";
  EXPECT_FALSE(DecodeMessage(row).ok()) << "a member without a key";
  row.payload = R"({"groups":{}})";
  EXPECT_FALSE(DecodeMessage(row).ok());
}

// The kind column decides what a payload is read as: an incident whose key looks like a group's
// or whose upstream snapshot starts with a "group" member is still an incident, and a group row
// is read as a group whatever its key.
TEST(MessageCodecTest, TheRowKindNotTheKeyOrShapeSaysWhatThePayloadIs) {
  core::OutboxRow row;
  row.key = "{group}:lookalike";
  row.payload = R"({"group":"upstream's own field","key":"{group}:lookalike","status":"open"})";
  core::Result<core::Message> message = DecodeMessage(row);
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_EQ(message->kind, core::Message::Kind::kIncident);
  EXPECT_EQ(message->incident.key, "{group}:lookalike");

  const core::WallTime now = *core::ParseRfc3339("2026-12-02T11:00:00Z");
  core::OutboxRow group =
      core::MakeGroupRow("ops", "condition=x", 1, core::TransitionKind::kOpen, 0, now, 0);
  ASSERT_EQ(group.kind, core::OutboxRowKind::kGroup);
  group.key = "renamed";
  message = DecodeMessage(group);
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_EQ(message->kind, core::Message::Kind::kGroup);
  EXPECT_EQ(message->group.key, "condition=x");
}

TEST(MessageCodecTest, SortedObjectKeepsTheLastOfTwoMembersOfOneName) {
  EXPECT_EQ(SortedObject({{"b", "1"}, {"a", "2"}, {"b", "3"}}), R"({"a":2,"b":3})");
  EXPECT_EQ(SortedObject({}), "{}");
}

}  // namespace
}  // namespace quell::jsonl
