#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "quell/app/operator_commands.h"

namespace quell::text_output {

// What an operator command prints when it did what was asked (`incidents ack|resolve`,
// `silence add`, `outbox dead retry`); a line each, part of the command-line contract.
void PrintAcked(std::FILE* out, const core::Incident& incident);
// The key, its generation and version, each channel's outbox row (or that none was routed),
// the groups resolved upstream, and how long the key is held resolved.
void PrintResolved(std::FILE* out, const app::ResolveResult& resolved);
void PrintSilenceAdded(std::FILE* out, const core::Silence& silence);
void PrintRetriedAll(std::FILE* out, const core::OperatorStore::RetriedRows& retried,
                     std::optional<std::string_view> channel);
void PrintRetried(std::FILE* out, const std::string& idempotency_key, core::OutboxStatus status);

}  // namespace quell::text_output
