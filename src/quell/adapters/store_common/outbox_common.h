#pragma once

#include <optional>
#include <string_view>

#include "quell/core/ports/outbox_store.h"
#include "quell/core/result.h"

namespace quell::store {

// The outbox status a recorded outcome leaves its row in: "sent", "pending" (rescheduled or
// deferred) or "dead".
const char* OutcomeStatus(core::OutboxOutcome::Kind kind);

// 1 starts (or continues) the row's throttled run, 0 ends it, -1 leaves it (a deferral sent
// nothing).
int ThrottleMark(const core::OutboxOutcome& outcome);

// The attempt an outcome counts: a send that was answered, unless the provider throttled it.
int CountedAttempt(const core::OutboxOutcome& outcome);

// What a recorded outcome is called in delivery_attempts: sent, failed (rescheduled),
// throttled (rescheduled or dead on a provider's 429), dead or deferred; and its detail there,
// the remote message id of a send, else the error.
const char* AttemptOutcome(const core::OutboxOutcome& outcome);
std::string_view AttemptDetail(const core::OutboxOutcome& outcome);

// Why an operator's change to the dead row `key` did nothing: kNotFound when no row has that
// key (`status` empty), else kRejected naming the status the row is in.
core::Error NotDeadError(std::string_view key, std::optional<std::string_view> status);

}  // namespace quell::store
