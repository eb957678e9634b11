#pragma once

#include <cstddef>
#include <span>

#include "quell/core/ports/observation_stream.h"

namespace quell::app {

// A poll's observations already in memory, e.g. those a source poll produced.
class VectorObservationStream : public core::ObservationStream {
 public:
  explicit VectorObservationStream(std::span<const core::Observation> observations)
      : observations_(observations) {}

  core::Result<bool> Next(core::Observation& out) override {
    if (next_ >= observations_.size()) return false;
    out = observations_[next_++];
    return true;
  }
  core::Status Rewind() override {
    next_ = 0;
    return {};
  }

 private:
  std::span<const core::Observation> observations_;
  size_t next_ = 0;
};

}  // namespace quell::app
