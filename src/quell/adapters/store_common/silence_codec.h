#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "quell/core/engine/silence.h"
#include "quell/core/result.h"

namespace quell::store {

// The silences.match_kind column of silence `id`; kCorrupt for a value neither store writes
// (the column's CHECK refuses one, so only a hand-edited database holds it).
inline core::Result<core::SilenceMatch> SilenceMatchFromColumn(uint64_t id, std::string_view text) {
  if (auto match = core::ParseSilenceMatch(text)) return *match;
  return core::MakeError(core::ErrorCode::kCorrupt, "silence " + std::to_string(id) +
                                                        " has match_kind \"" + std::string(text) +
                                                        "\", not glob or exact");
}

}  // namespace quell::store
