// The channels that send parts of the payload as structured data (PagerDuty's custom_details,
// the webhook's group and dead-letter bodies) print them from the message the dispatcher read
// once. These tests build each body the way the channel built it when it parsed the payload
// itself (nlohmann-json, sorted keys) and require the same bytes. No network.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "quell/adapters/channels/pagerduty/pagerduty_channel.h"
#include "quell/adapters/channels/webhook/webhook_channel.h"
#include "quell/adapters/jsonl/message_codec.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/core/delivery/dead_letter.h"
#include "quell/core/delivery/grouping.h"

namespace quell::channels {
namespace structured_bodies_test {

using nlohmann::json;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

core::Delivery Read(core::OutboxRow row, core::RenderedMessage message) {
  core::Result<core::Message> content = jsonl::DecodeMessage(row);
  EXPECT_TRUE(content.ok()) << content.error().message;
  return core::Delivery{std::move(row), std::move(message), "",
                        content.ok() ? std::move(*content) : core::Message{}};
}

std::string Snapshot(const std::string& key, core::TransitionKind transition) {
  core::Incident in;
  in.key = key;
  in.condition = "agent-errors";
  in.generation = 2;
  in.version = 5;
  in.opened_at = *core::ParseRfc3339("2026-12-02T09:00:00Z");
  in.last_seen_at = *core::ParseRfc3339("2026-12-02T09:05:00Z");
  in.event_count = 3;
  in.labels = {{"tenant", "acme \"quoted\""}, {"stage", "prod\xE2\x80\xA8"}};
  in.upstream_count = 40;
  in.recent_evidence = {
      R"({"title":"TimeoutError","level":"error","count":"40","value":0.5,"threshold":0.25})",
      R"({"annotations":{"summary":"S"},"status":"firing","generatorURL":"https://g/x"})"};
  std::string out;
  jsonl::JsonPayloadEncoder().Encode(in, transition, out);
  return out;
}

core::RenderedMessage Message() {
  return {"[ERROR] TimeoutError \xE2\x80\xA8 in \"checkout\"",
          "body\nline \x01",
          "fatal",
          {{"https://runbooks.example/r", "Runbook"}}};
}

// PagerDutyChannel::Encode as it was: the payload parsed, three fields set, the body dumped.
std::string OldPagerDutyBody(const core::Delivery& d, const PagerDutySettings& settings,
                             const json& details_in, const std::string& dedup_key) {
  json body = {{"routing_key", settings.routing_key},
               {"event_action", "trigger"},
               {"dedup_key", dedup_key},
               {"client", "quell"}};
  json details = details_in;
  details["quell_idempotency_key"] = d.row.idempotency_key;
  const core::MessageKind kind = core::MessageKindOf(d.row);
  details["kind"] = core::MessageKindName(kind);
  if (core::IsGroupKey(d.row.key)) details["kind"] = "group";
  if (kind != core::MessageKind::kDeadLetter) {
    details["transition"] = core::TransitionName(d.row.transition);
  }
  body["payload"] = {{"summary", d.message.subject},
                     {"source", d.row.key},
                     {"severity", "critical"},
                     {"custom_details", details}};
  json links = json::array();
  for (const auto& link : d.message.links)
    links.push_back({{"href", link.url}, {"text", link.text}});
  if (!links.empty()) body["links"] = links;
  return Dump(body);
}

PagerDutySettings PagerDuty() {
  PagerDutySettings settings;
  settings.base_url = "http://127.0.0.1:9";
  settings.routing_key = "R0UTING";
  settings.source.clear();  // payload.source falls back to the row's key
  return settings;
}

TEST(StructuredBodiesTest, PagerDutysTriggerIsTheSameBytes) {
  core::OutboxRow row;
  row.key = "acme:checkout";
  row.channel = "pd";
  row.generation = 2;
  row.version = 5;
  row.transition = core::TransitionKind::kRenotify;
  row.idempotency_key = core::OutboxIdempotencyKey(row.key, 2, 5, "pd");
  row.payload = Snapshot(row.key, row.transition);
  const core::Delivery d = Read(row, Message());
  const auto channel = PagerDutyChannel::Create(PagerDuty());
  ASSERT_TRUE(channel.ok());
  const auto request = (*channel)->Encode(d, core::WallTime{});
  ASSERT_TRUE(request.ok()) << request.error().message;
  EXPECT_EQ(request->body,
            OldPagerDutyBody(d, PagerDuty(), json::parse(row.payload), "acme:checkout:2"));
}

core::OutboxRow Group(size_t members, uint64_t episode) {
  const core::WallTime now = *core::ParseRfc3339("2026-12-02T09:10:00Z");
  core::OutboxRow group = core::MakeGroupRow("pd", "condition=agent-errors,tenant=acme", 3,
                                             core::TransitionKind::kOpen, 2, now, episode);
  std::vector<core::OutboxRow> rows(members);
  for (size_t i = 0; i < members; ++i) {
    rows[i].transition = i % 2 == 0 ? core::TransitionKind::kOpen : core::TransitionKind::kResolve;
    rows[i].payload = Snapshot("acme:m" + std::to_string(i), rows[i].transition);
  }
  group.payload = core::GroupPayload(group, rows, core::GroupStanding{1, 1});
  return group;
}

TEST(StructuredBodiesTest, PagerDutysGroupTriggerIsTheSameBytes) {
  for (const uint64_t episode : {0U, 7U}) {
    const core::Delivery d = Read(Group(8, episode), Message());
    const auto channel = PagerDutyChannel::Create(PagerDuty());
    ASSERT_TRUE(channel.ok());
    const auto request = (*channel)->Encode(d, core::WallTime{});
    ASSERT_TRUE(request.ok()) << request.error().message;
    // GroupDetails as it was: the group's fields copied, the first five members' key and
    // transition, the rest counted.
    const json payload = json::parse(d.row.payload);
    const json& group = payload.at("group");
    json details = json::object();
    for (const char* name :
         {"key", "channel", "sequence", "episode", "labels", "counts", "open_after", "standing"}) {
      if (group.contains(name)) details[name] = group.at(name);
    }
    json members = json::array();
    for (size_t i = 0; i < 5; ++i) {
      const json& member = group.at("members").at(i);
      members.push_back({{"key", member.at("key")}, {"transition", member.at("transition")}});
    }
    details["members_more"] = 3;
    details["members"] = members;
    EXPECT_EQ(request->body, OldPagerDutyBody(d, PagerDuty(), details, PagerDutyDedupKey(d)));
  }
}

TEST(StructuredBodiesTest, TheWebhooksGroupBodyIsTheSameBytes) {
  const core::Delivery d = Read(Group(6, 7), Message());
  const auto body = WebhookBody(d, 4);
  ASSERT_TRUE(body.ok()) << body.error().message;
  json payload = json::parse(d.row.payload);
  json& group = payload["group"];
  json members = std::move(group["members"]);
  group.erase("members");
  members.erase(members.begin() + 4, members.end());
  group["members_more"] = 2;
  const json expected = {{"generation", d.row.generation},
                         {"group", group},
                         {"idempotency_key", d.row.idempotency_key},
                         {"incident", nullptr},
                         {"incident_version", d.row.version},
                         {"key", d.row.key},
                         {"kind", "group"},
                         {"members", members},
                         {"message",
                          {{"body", d.message.body},
                           {"severity", d.message.severity},
                           {"subject", d.message.subject}}},
                         {"transition", "open"},
                         {"version", 1}};
  EXPECT_EQ(*body, Dump(expected));
}

TEST(StructuredBodiesTest, TheDeadLetterBodiesAreTheSameBytes) {
  const core::WallTime now = *core::ParseRfc3339("2026-12-02T09:10:00Z");
  core::OutboxRow notice =
      core::MakeDeadLetterRow("pd", core::DeadLetterWindowAt(now, std::chrono::minutes(5)), now);
  core::OutboxRow died;
  died.key = "acme:checkout";
  died.channel = "pd";
  died.last_error = "HTTP 500 \"no\"\n";
  const std::vector<core::OutboxRow> rows = {died};
  notice.payload = core::DeadLetterPayload(notice, rows);
  const core::Delivery d = Read(notice, core::DeadLetterMessage(notice, rows));

  const auto body = WebhookBody(d);
  ASSERT_TRUE(body.ok()) << body.error().message;
  const json expected = {{"dead_letter", json::parse(notice.payload)["dead_letter"]},
                         {"idempotency_key", notice.idempotency_key},
                         {"kind", "dead_letter"},
                         {"message",
                          {{"body", d.message.body},
                           {"severity", d.message.severity},
                           {"subject", d.message.subject}}},
                         {"version", 1}};
  EXPECT_EQ(*body, Dump(expected));

  const auto channel = PagerDutyChannel::Create(PagerDuty());
  ASSERT_TRUE(channel.ok());
  const auto request = (*channel)->Encode(d, core::WallTime{});
  ASSERT_TRUE(request.ok());
  json old = json::parse(
      OldPagerDutyBody(d, PagerDuty(), json::parse(notice.payload), PagerDutyDedupKey(d)));
  old["payload"]["severity"] = "critical";
  EXPECT_EQ(request->body, Dump(old));
}

}  // namespace structured_bodies_test
}  // namespace quell::channels
