// The outbox payload's reading (jsonl::DecodeMessage: simdjson into nlohmann-json's value
// model) against the nlohmann-json DOM reading it replaced, kept in the tests as the reference:
// every field, every string the codec prints again and every refusal must be the same. A
// payload is quell's own text, but its evidence is upstreams' bytes. Input: a row-kind byte
// (incident, group, digest, dead letter), the payload.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "nlohmann_reference_codec.h"
#include "quell/adapters/jsonl/json_tree.h"
#include "quell/adapters/jsonl/message_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  quell::fuzz::FuzzInput input(data, size);
  quell::core::OutboxRow row;
  row.key = "k";
  constexpr quell::core::OutboxRowKind kKinds[] = {
      quell::core::OutboxRowKind::kIncident, quell::core::OutboxRowKind::kGroup,
      quell::core::OutboxRowKind::kDigest, quell::core::OutboxRowKind::kDeadLetter};
  row.kind = kKinds[input.Byte() % 4];
  row.payload = std::string(input.Rest());
  // The one difference kept (json_tree.h): nesting past kMaxDepth, which needs this many bytes.
  if (row.payload.size() > 2 * quell::jsonl::JsonTree::kMaxDepth) return 0;
  namespace reference = quell::jsonl::reference;
  quell::fuzz::Require(reference::DescribeMessage(quell::jsonl::DecodeMessage(row)) ==
                           reference::DescribeMessage(reference::DecodeMessage(row)),
                       "DecodeMessage read the payload otherwise than nlohmann's DOM");
  return 0;
}
