// Datadog's answers to "Get all monitors" (docs/operations.md, "Fuzzing"), as the Datadog source
// reads each page. Input: a status byte, the body.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "quell/adapters/datadog/monitor_page.h"

namespace {

constexpr std::array<int, 8> kStatuses = {200, 200, 200, 200, 403, 429, 500, 503};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  quell::fuzz::FuzzInput input(data, size);
  const int status = kStatuses[input.Byte() % kStatuses.size()];
  const std::string body(input.Rest());
  const auto page = quell::datadog::ParseMonitorPage(status, body, "https://app.datadoghq.com");
  if (!page) {
    quell::fuzz::Require(status != 200 || page.error().code == quell::core::ErrorCode::kCorrupt,
                         "a 200 refused with a code other than kCorrupt");
    return 0;
  }
  quell::fuzz::Require(status == 200, "an error status read as monitors");
  for (const quell::core::MonitorGroup& group : page->groups) {
    quell::fuzz::Require(!group.monitor_id.empty(), "a group without its monitor's id");
    if (group.triggered_at) {
      quell::fuzz::RequireWritableTime(*group.triggered_at, "a trigger time cannot be written");
    }
    for (size_t i = 1; i < group.tags.size(); ++i) {
      quell::fuzz::Require(group.tags[i - 1].first < group.tags[i].first,
                           "tags not sorted and unique");
    }
  }
  return 0;
}
