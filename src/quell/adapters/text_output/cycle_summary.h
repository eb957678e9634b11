#pragma once

#include <string>

#include "quell/app/poller.h"

namespace quell::text_output {

// One condition's part of a poll cycle, as `quell poll-once` prints it on stderr: its counts by
// decision and outbox rows, enrichment, and why its source failed or its apply did not commit.
std::string ConditionSummary(const app::ConditionOutcome& outcome);

}  // namespace quell::text_output
