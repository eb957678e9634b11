#include "quell/adapters/channels/webhook/webhook_reader.h"

#include <string>
#include <utility>

#include "quell/adapters/config/secret_reader.h"

namespace quell::channels {

void ReadWebhookSettings(ChannelReading& reading, WebhookSettings& out) {
  config::MapReader& item = reading.item;
  item.Read("url", out.url);
  reading.RequireUrl("url", out.url, {"http://", "https://"});
  std::string signing = "required";
  item.Read("signing", signing);
  if (signing == "required") {
    out.signing = WebhookSigning::kRequired;
  } else if (signing == "when_set") {
    out.signing = WebhookSigning::kWhenSet;
  } else if (signing == "off") {
    out.signing = WebhookSigning::kOff;
  } else {
    item.Fail("signing", "expected required, when_set or off, got \"" + signing + "\"");
    return;
  }
  if (out.signing == WebhookSigning::kOff) {
    if (item.Has("secret_env") || item.Has("secret_file")) {
      item.Fail("signing",
                "off sends unsigned requests, so the secret reference is unused: "
                "remove it or use when_set");
      std::string unused;  // read, so Finish() does not report it a second time
      item.Read("secret_env", unused);
      item.Read("secret_file", unused);
    }
    reading.warnings.push_back(item.Locate("signing") + ": channel \"" + reading.name +
                               "\" sends unsigned requests (signing: off)");
    return;
  }
  config::SecretRef secret = config::ReadSecret(item, "secret", reading.dir, true);
  out.secret = std::move(secret.value);
  if (secret.unresolved.empty()) return;
  // An unset variable is what when_set allows; an unreadable secret_file is still a mistake.
  if (out.signing == WebhookSigning::kWhenSet && !item.Has("secret_file")) {
    reading.warnings.push_back(secret.unresolved + ": channel \"" + reading.name +
                               "\" sends unsigned requests until it is (signing: when_set)");
  } else {
    reading.unresolved.push_back(std::move(secret.unresolved));
  }
}

}  // namespace quell::channels
