#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "quell/adapters/curl/curl_multi_client.h"
#include "quell/adapters/jsonl/message_codec.h"
#include "quell/core/ports/channel.h"

// Drives one delivery through a channel and CurlMultiClient the way the dispatcher does:
// encode, send, decode; a transport error becomes a retry when retryable.
namespace quell::channels::testing {

inline core::WallTime TestNow() {
  return core::WallTime{std::chrono::seconds(1'796'000'000)};  // 2026-11-29
}

// Reads the row's payload into delivery.content, as the dispatcher does once per claimed row
// (an unreadable payload leaves it empty: the dispatcher would not have sent the row).
inline core::Delivery& Read(core::Delivery& delivery) {
  core::Result<core::Message> message = jsonl::DecodeMessage(delivery.row);
  delivery.content = message.ok() ? std::move(*message) : core::Message{};
  return delivery;
}

inline core::Delivery MakeDelivery(core::TransitionKind transition = core::TransitionKind::kOpen,
                                   uint64_t version = 1) {
  core::Delivery delivery;
  core::OutboxRow& row = delivery.row;
  row.key = "checkout/errors:TypeError";
  row.generation = 3;
  row.version = version;
  row.transition = transition;
  row.channel = "test";
  row.idempotency_key = core::OutboxIdempotencyKey(row.key, row.generation, version, row.channel);
  row.payload = R"({"key":"checkout/errors:TypeError","status":"open","event_count":12})";
  delivery.message.subject = "TypeError in checkout";
  delivery.message.body = "12 events since 09:00. Latest: cannot read 'id' of undefined";
  delivery.message.severity = "critical";
  Read(delivery);
  return delivery;
}

inline core::SendOutcome SendOnce(const core::HttpChannel& channel, curl::CurlMultiClient& client,
                                  const core::Delivery& delivery, core::WallTime now = TestNow()) {
  core::Result<core::HttpRequest> request = channel.Encode(delivery, now);
  if (!request.ok()) return core::SendOutcome::Permanent(request.error().message);
  const std::vector<core::HttpExchange> batch = {core::HttpExchange{*request, 0}};
  const std::vector<uint32_t> limits = {1};
  core::SendOutcome outcome = core::SendOutcome::Permanent("never answered");
  client.SendAll(batch, limits, [&](size_t, core::Result<core::HttpResponse> result) {
    if (result.ok()) {
      outcome = channel.Decode(delivery, *result);
    } else if (result.error().IsRetryable()) {
      outcome = core::SendOutcome::Retry(result.error().message);
    } else {
      outcome = core::SendOutcome::Permanent(result.error().message);
    }
  });
  return outcome;
}

}  // namespace quell::channels::testing
