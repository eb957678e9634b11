#pragma once

#include "quell/core/ports/message.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"

namespace quell::jsonl::reference {

// jsonl::DecodeMessage as it read payloads with nlohmann-json's DOM: the reference for tests.
core::Result<core::Message> DecodeMessage(const core::OutboxRow& row);

}  // namespace quell::jsonl::reference
