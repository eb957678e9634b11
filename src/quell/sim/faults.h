#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "quell/core/result.h"

namespace quell::sim {

enum class FaultKind {
  kStatus,     // answer with an error envelope (401, 402, 429 + Retry-After, 500, 503, ...)
  kDelay,      // answer normally after delay_ms
  kTimeout,    // hang for delay_ms (default 30 s, past any sane client timeout), then answer
  kTruncate,   // cut the JSON body in half
  kMalformed,  // serve text that is not JSON
  kNonObject,  // serve a valid JSON value that is not an object (default `[]`)
  kRename,     // serve group fields under other names (id for error_group_id, ...)
  kBytes,      // replace text in the body by raw bytes (an upstream that sends Latin-1, ...)
};

// One injected failure. Faults live in SimState and are matched per request, in insertion order.
struct Fault {
  std::string route = "*";  // "*", a capability id ("errors.groups"), a path, or a "prefix*"
  FaultKind kind = FaultKind::kStatus;
  int status = 500;
  std::string code;  // empty: the usual code for `status`
  std::string message;
  std::string hint;
  std::optional<int64_t> retry_after_s;  // 429: the Retry-After value
  bool retry_after_http_date = false;    // 429: send Retry-After as an HTTP-date instead
  int64_t delay_ms = 0;
  int64_t remaining = -1;  // how many more requests it hits; -1 = until cleared
  double probability = 1.0;
  std::optional<int64_t> page;  // hit only page K (1-based) of a paginated listing
  std::vector<std::pair<std::string, std::string>> renames;  // kRename: from -> to
  std::string body;                                          // kNonObject: the value served
  std::string find;   // kBytes: the text replaced, every occurrence
  std::string bytes;  // kBytes: what replaces it, byte for byte (given in hex)
  uint64_t fired = 0;
};

// What the faults decided for one request.
struct FaultPick {
  std::optional<Fault> answer;  // a kStatus fault: reply with it instead of the handler
  int64_t delay_ms = 0;
  bool truncate = false;
  bool malformed = false;
  std::optional<std::string> non_object;
  std::vector<std::pair<std::string, std::string>> renames;
  std::vector<std::pair<std::string, std::string>> byte_swaps;  // kBytes: find -> bytes
};

class FaultSet {
 public:
  void Add(Fault f) { faults_.push_back(std::move(f)); }
  void Clear() { faults_.clear(); }
  // Consumes one use of each fault that fires for this request (at most one kStatus fault).
  FaultPick Pick(const std::string& capability, const std::string& path, int64_t page,
                 std::mt19937_64& rng);
  const std::vector<Fault>& faults() const { return faults_; }

 private:
  std::vector<Fault> faults_;
};

// The error code string Infrai (or, where undocumented, the simulator) sends with `status`.
std::string DefaultCodeFor(int status);

// {"route":"errors.groups","kind":"429","count":2,"retry_after":3} and friends; see
// docs/simulator.md. Fails with kInvalidArgument naming the bad key.
core::Result<Fault> FaultFromJson(const nlohmann::json& j);
nlohmann::json FaultToJson(const Fault& f);
// The --fault flag: "route=errors.groups,kind=429,count=2,retry_after=3" (renames as
// "renames=error_group_id:id;count:event_count"), or the same as a JSON object.
core::Result<Fault> ParseFaultSpec(const std::string& spec);

// Applies `renames` to the group objects in an envelope's data (data itself and data.groups[]).
// status -> is_resolved turns the string into the boolean the samples expect.
void ApplyRenames(nlohmann::json& data,
                  const std::vector<std::pair<std::string, std::string>>& renames);

// Replaces every occurrence of each `find` in `body` by its bytes, which need not be UTF-8 (nor
// JSON): how an upstream that writes Latin-1, or cuts a string inside a character, answers.
void ApplyByteSwaps(std::string& body,
                    const std::vector<std::pair<std::string, std::string>>& swaps);

}  // namespace quell::sim
