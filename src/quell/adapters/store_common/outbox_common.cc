#include "quell/adapters/store_common/outbox_common.h"

#include <string>

namespace quell::store {

const char* OutcomeStatus(core::OutboxOutcome::Kind kind) {
  switch (kind) {
    case core::OutboxOutcome::Kind::kSent:
      return "sent";
    case core::OutboxOutcome::Kind::kReschedule:
    case core::OutboxOutcome::Kind::kDefer:
      return "pending";
    case core::OutboxOutcome::Kind::kDead:
      return "dead";
  }
  return "dead";
}

int ThrottleMark(const core::OutboxOutcome& outcome) {
  if (outcome.kind == core::OutboxOutcome::Kind::kDefer) return -1;
  return outcome.throttled ? 1 : 0;
}

int CountedAttempt(const core::OutboxOutcome& outcome) {
  return outcome.kind == core::OutboxOutcome::Kind::kDefer || outcome.throttled ? 0 : 1;
}

const char* AttemptOutcome(const core::OutboxOutcome& outcome) {
  switch (outcome.kind) {
    case core::OutboxOutcome::Kind::kSent:
      return "sent";
    case core::OutboxOutcome::Kind::kReschedule:
      return outcome.throttled ? "throttled" : "failed";
    case core::OutboxOutcome::Kind::kDead:
      return "dead";
    case core::OutboxOutcome::Kind::kDefer:
      return "deferred";
  }
  return "dead";
}

std::string_view AttemptDetail(const core::OutboxOutcome& outcome) {
  return outcome.kind == core::OutboxOutcome::Kind::kSent ? outcome.remote_message_id
                                                          : outcome.error;
}

core::Error NotDeadError(std::string_view key, std::optional<std::string_view> status) {
  if (!status)
    return core::MakeError(core::ErrorCode::kNotFound, "no outbox row " + std::string(key));
  return core::MakeError(core::ErrorCode::kRejected, "outbox row " + std::string(key) + " is " +
                                                         std::string(*status) + ", not dead");
}

}  // namespace quell::store
