#pragma once

// The webhook channel moved to its folder (webhook/); bench/ still includes it here.
#include "quell/adapters/channels/webhook/webhook_channel.h"  // IWYU pragma: export
