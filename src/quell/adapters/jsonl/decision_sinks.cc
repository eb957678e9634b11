#include "quell/adapters/jsonl/decision_sinks.h"

#include <unistd.h>

#include "quell/adapters/jsonl/decision_line.h"

namespace quell::jsonl {

SpooledDecisionSink::SpooledDecisionSink() : spool_(std::tmpfile()) {}

SpooledDecisionSink::~SpooledDecisionSink() {
  if (spool_ != nullptr) std::fclose(spool_);
}

void SpooledDecisionSink::OnDecision(const core::Observation& observation,
                                     const core::Decision& decision) {
  AppendDecisionLine(buffer_, observation, decision);
  if (buffer_.size() >= kFlushBytes) Flush();
}

void SpooledDecisionSink::Reset() {
  buffer_.clear();
  if (spool_ != nullptr) {
    failed_ = std::fflush(spool_) != 0 || ftruncate(fileno(spool_), 0) != 0;
    std::rewind(spool_);
  }
}

bool SpooledDecisionSink::CopyTo(std::FILE* out) {
  Flush();
  if (!ok() || std::fflush(spool_) != 0) return false;
  std::rewind(spool_);
  char chunk[1 << 16];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, spool_)) > 0) {
    if (std::fwrite(chunk, 1, n, out) != n) return false;
  }
  return std::fflush(out) == 0;
}

void SpooledDecisionSink::Flush() {
  if (spool_ == nullptr || buffer_.empty()) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), spool_) != buffer_.size()) failed_ = true;
  buffer_.clear();
}

void PrintingDecisionSink::OnDecision(const core::Observation& observation,
                                      const core::Decision& decision) {
  line_.clear();
  AppendDecisionLine(line_, observation, decision);
  std::fwrite(line_.data(), 1, line_.size(), out_);
}

}  // namespace quell::jsonl
