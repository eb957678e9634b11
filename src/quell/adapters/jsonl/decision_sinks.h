#pragma once

#include <cstdio>
#include <string>

#include "quell/app/poll_applier.h"

namespace quell::jsonl {

// Holds decision lines in an unlinked temporary file until the poll commits, so a million-key
// poll does not hold its output in memory and nothing is printed for a batch that rolled back
// (Reset empties it).
class SpooledDecisionSink : public app::DecisionSink {
 public:
  SpooledDecisionSink();
  ~SpooledDecisionSink() override;
  SpooledDecisionSink(const SpooledDecisionSink&) = delete;
  SpooledDecisionSink& operator=(const SpooledDecisionSink&) = delete;

  // False when the temporary file could not be made or written.
  bool ok() const { return spool_ != nullptr && !failed_; }

  void OnDecision(const core::Observation& observation, const core::Decision& decision) override;
  void Reset() override;

  // Copies everything held to `out` and flushes it; false when a read or write failed.
  bool CopyTo(std::FILE* out);

 private:
  static constexpr size_t kFlushBytes = size_t{1} << 16;
  void Flush();

  std::FILE* spool_;
  std::string buffer_;
  bool failed_ = false;
};

// Writes each decision line to `out` as it comes (`quell poll-once`); Reset does nothing.
class PrintingDecisionSink : public app::DecisionSink {
 public:
  explicit PrintingDecisionSink(std::FILE* out) : out_(out) {}
  void OnDecision(const core::Observation& observation, const core::Decision& decision) override;
  void Reset() override {}

 private:
  std::FILE* out_;
  std::string line_;
};

}  // namespace quell::jsonl
