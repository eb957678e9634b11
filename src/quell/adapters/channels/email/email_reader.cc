#include "quell/adapters/channels/email/email_reader.h"

#include <string>

namespace quell::channels {

void ReadEmailSettings(ChannelReading& reading, email::EmailSettings& out) {
  config::MapReader& item = reading.item;
  item.Read("url", out.url);
  reading.RequireUrl("url", out.url, {"smtp://", "smtps://"});
  std::string starttls = "required";
  item.Read("starttls", starttls);
  if (starttls == "required") {
    out.starttls = email::StartTls::kRequired;
  } else if (starttls == "optional") {
    out.starttls = email::StartTls::kOptional;
  } else {
    item.Fail("starttls", "expected required or optional");
  }
  item.Read("username", out.username);
  out.password = reading.Secret("password", false);
  item.Read("from", out.from);
  item.Read("to", out.to);
  item.Read("message_id_domain", out.message_id_domain);
  if (out.from.find('@') == std::string::npos) item.Fail("from", "a sender address is required");
  if (out.to.empty()) item.Fail("to", "at least one recipient is required");
}

}  // namespace quell::channels
