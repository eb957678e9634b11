#include "quell/adapters/channels/google_chat/google_chat_reader.h"

#include <string>

namespace quell::channels {

void ReadGoogleChatSettings(ChannelReading& reading, GoogleChatSettings& out) {
  out.url = reading.CredentialUrl();
}

}  // namespace quell::channels
