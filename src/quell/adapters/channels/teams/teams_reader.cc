#include "quell/adapters/channels/teams/teams_reader.h"

#include <string>

namespace quell::channels {

void ReadTeamsSettings(ChannelReading& reading, TeamsSettings& out) {
  out.url = reading.CredentialUrl();
}

}  // namespace quell::channels
