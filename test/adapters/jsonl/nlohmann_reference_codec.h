#pragma once

#include <string>

#include "quell/core/ports/message.h"
#include "quell/core/ports/outbox_row.h"
#include "quell/core/result.h"

namespace quell::jsonl::reference {

// jsonl::DecodeMessage as it read payloads with nlohmann-json's DOM: the reference for tests.
core::Result<core::Message> DecodeMessage(const core::OutboxRow& row);

// Every field of a decoded message (or its error), one per line, and what the codec's writers
// print from it (SnapshotJson, GroupJson, NoticeJson): two decodings are the same when these are.
std::string DescribeMessage(const core::Result<core::Message>& message);

}  // namespace quell::jsonl::reference
