// The providers' answers to a notification (docs/operations.md, "Fuzzing"): each HTTP channel's
// Decode over a status, headers (Retry-After and Date among them) and a body, as the dispatcher
// reads what Slack, PagerDuty, Twilio, Opsgenie, Telegram, ... sent back. Input: a channel byte,
// a status byte, header lines ("Name: value") up to an empty line, then the body.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "quell/adapters/channels/discord/discord_channel.h"
#include "quell/adapters/channels/google_chat/google_chat_channel.h"
#include "quell/adapters/channels/mattermost/mattermost_channel.h"
#include "quell/adapters/channels/ntfy/ntfy_channel.h"
#include "quell/adapters/channels/opsgenie/opsgenie_channel.h"
#include "quell/adapters/channels/pagerduty/pagerduty_channel.h"
#include "quell/adapters/channels/slack/slack_channel.h"
#include "quell/adapters/channels/sms/twilio_sms_channel.h"
#include "quell/adapters/channels/teams/teams_channel.h"
#include "quell/adapters/channels/telegram/telegram_channel.h"
#include "quell/adapters/channels/webhook/webhook_channel.h"

namespace {

using quell::core::HttpChannel;

template <typename T>
void Add(std::vector<std::unique_ptr<HttpChannel>>& out,
         quell::core::Result<std::unique_ptr<T>> channel) {
  if (!channel) quell::fuzz::Fail(channel.error().message);
  out.push_back(std::move(*channel));
}

// Each channel as the config makes it (Create), with made-up credentials.
std::vector<std::unique_ptr<HttpChannel>> Channels() {
  using namespace quell::channels;  // NOLINT(google-build-using-namespace): one list
  std::vector<std::unique_ptr<HttpChannel>> out;
  Add(out, WebhookChannel::Create(WebhookSettings{.url = "https://hook.example/x",
                                                  .secret = "a-webhook-secret-0123"}));
  SlackSettings hook;
  hook.webhook_url = "https://hooks.slack.com/services/T/B/x";
  Add(out, SlackChannel::Create(hook));
  SlackSettings bot;
  bot.mode = SlackSettings::Mode::kBotToken;
  bot.token = "xoxb-1-2-x";
  bot.channel = "C0123";
  Add(out, SlackChannel::Create(bot));
  Add(out, PagerDutyChannel::Create(PagerDutySettings{.routing_key = "R0123"}));
  Add(out, TwilioSmsChannel::Create(SmsSettings{.account_sid = "AC0123",
                                                .auth_token = "t",
                                                .from = "+15005550006",
                                                .to = "+15005550001"}));
  Add(out, OpsgenieChannel::Create(OpsgenieSettings{.api_key = "k"}));
  Add(out, TelegramChannel::Create(TelegramSettings{.token = "123456:ABC", .chat_id = "-100123"}));
  Add(out, TeamsChannel::Create(TeamsSettings{.url = "https://teams.example/x"}));
  Add(out, GoogleChatChannel::Create(GoogleChatSettings{
               .url = "https://chat.googleapis.com/v1/spaces/x/messages?key=k"}));
  Add(out, NtfyChannel::Create(NtfySettings{.url = "https://ntfy.sh/quell"}));
  Add(out, DiscordChannel::Create(DiscordSettings{.url = "https://discord.com/api/webhooks/1/x"}));
  Add(out, MattermostChannel::Create(MattermostSettings{.url = "https://mm.example/hooks/x"}));
  return out;
}

constexpr std::array<int, 16> kStatuses = {200, 200, 201, 202, 204, 400, 401, 403,
                                           404, 409, 413, 429, 500, 502, 503, 302};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::unique_ptr<HttpChannel>> channels = Channels();
  quell::fuzz::FuzzInput input(data, size);
  const HttpChannel& channel = *channels[input.Byte() % channels.size()];
  const uint8_t status_byte = input.Byte();

  quell::core::HttpResponse response;
  response.status = kStatuses[status_byte % kStatuses.size()];
  while (true) {
    const std::string_view line = input.Line();
    if (line.empty()) break;
    const size_t colon = line.find(':');
    const std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    response.headers.emplace_back(std::string(line.substr(0, colon)),
                                  std::string(value.substr(value.starts_with(' ') ? 1 : 0)));
  }
  response.body = std::string(input.Rest());

  quell::core::Delivery delivery;
  delivery.row.idempotency_key = "db:1/2/3/hook";
  delivery.row.key = "db:1";
  delivery.row.generation = 2;
  delivery.row.version = 3;
  delivery.row.transition = (status_byte & 0x80) != 0 ? quell::core::TransitionKind::kResolve
                                                      : quell::core::TransitionKind::kOpen;
  delivery.row.channel = "hook";
  delivery.message = {"db:1 is failing", "db:1 is failing since 09:00", "error"};
  if (delivery.row.transition != quell::core::TransitionKind::kOpen) {
    delivery.thread_remote_id = "1700000000.000100";
  }
  const quell::core::SendOutcome outcome = channel.Decode(delivery, response);
  using Kind = quell::core::SendOutcome::Kind;
  quell::fuzz::Require(outcome.kind == Kind::kSent || !outcome.error.empty(),
                       "a failed send without a reason");
  quell::fuzz::Require(!outcome.retry_after || outcome.retry_after->count() >= 0,
                       "a negative Retry-After");
  return 0;
}
