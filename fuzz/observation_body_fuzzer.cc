// quell's own observation records pushed over HTTP (docs/operations.md, "Fuzzing"), as POST
// /v1/observations parses them: one object, an array or JSON Lines. Input: a mode byte (bit 0:
// the key is required, as for `quell apply`), the body.
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "quell/adapters/inputs/observation_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  quell::fuzz::FuzzInput input(data, size);
  const uint8_t mode = input.Byte();
  quell::inputs::ObservationBodyOptions options;
  options.max_observations = 64;
  options.parser.limits.max_evidence_bytes = 4096;
  options.parser.require_key = (mode & 1) != 0;
  options.parser.now = quell::core::WallTime(std::chrono::seconds(1798794000));
  auto observations = quell::inputs::ParseObservationBody(input.Rest(), options);
  if (!observations) {
    quell::fuzz::Require(observations.error().code == quell::core::ErrorCode::kInvalidArgument,
                         "a refusal other than kInvalidArgument");
    return 0;
  }
  quell::fuzz::Require(observations->size() <= options.max_observations,
                       "more observations than max_observations");
  for (const quell::core::Observation& o : *observations) {
    quell::fuzz::Require(o.key.size() <= options.parser.limits.max_key_bytes,
                         "a key past the limit");
    quell::fuzz::Require(!options.parser.require_key || !o.key.empty(), "a required key is empty");
    quell::fuzz::Require(o.at <= *options.parser.now + options.parser.limits.max_future_skew,
                         "an observation from the future");
  }
  return 0;
}
