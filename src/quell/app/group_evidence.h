#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "quell/core/conditions/error_group.h"
#include "quell/core/engine/evidence.h"
#include "quell/core/redact/redact.h"

namespace quell::app {

// The group fields besides its summary that evidence keeps, when the source gives them
// (Sentry's: where the error happens, and the issue's own page, which a message links).
inline constexpr std::array<const char*, 2> kLinkFields = {"culprit", "permalink"};

// The evidence an incident keeps of one error group: the group's summary fields and tags,
// and with its detail the newest event's id, message and exception. Minimized (a handful of
// fields, each cut) and redacted before it is ever stored or sent.
std::string GroupEvidence(const core::ErrorGroup& group, const core::GroupDetail* detail,
                          const core::RedactOptions& redact,
                          const core::EvidenceOptions& options = {});

// The part of a listed group that GroupEvidence(group, nullptr, ...) reads, copied: its evidence
// and fingerprint are the group's own.
core::ErrorGroup GroupEvidenceSource(const core::ErrorGroup& group);

// The options and the rules GroupEvidence builds with, as one number to seed
// GroupEvidenceFingerprint: the options hashed with the evidence of a sample group that every
// redaction rule and limit touches, so that new rules give new fingerprints.
uint64_t EvidenceRulesSalt(const core::RedactOptions& redact,
                           const core::EvidenceOptions& options = {});

// A 64-bit hash of everything GroupEvidence(group, nullptr, ...) reads, seeded with
// EvidenceRulesSalt of the options it builds with: two groups with equal fingerprints have the
// same summary evidence (short of a hash collision), so a poll can take an unchanged group's
// evidence from its incident (Incident::evidence_fingerprint) instead of building it again.
uint64_t GroupEvidenceFingerprint(const core::ErrorGroup& group, uint64_t rules_salt);

}  // namespace quell::app
