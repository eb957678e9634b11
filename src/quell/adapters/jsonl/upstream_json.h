#pragma once

// Header only: the polled sources read with nlohmann-json (Sentry, Datadog, Prometheus) share it
// without linking quell_jsonl.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "quell/core/text/json_repair.h"

namespace quell::jsonl {

// A polled source's answer, discarded (is_discarded()) when it is not JSON. Text that is not
// UTF-8 (a title in Latin-1, a \ud83d cut from its pair) is read as U+FFFD instead of refusing
// the whole answer, which would fail every poll of the source for one issue's title
// (docs/sources.md). The repair is tried only after the strict parse refused the text.
inline nlohmann::json ParseUpstreamJson(std::string_view body) {
  nlohmann::json doc =
      nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_discarded()) return doc;
  const std::string repaired = core::RepairJsonText(body);
  return nlohmann::json::parse(repaired, nullptr, /*allow_exceptions=*/false);
}

}  // namespace quell::jsonl
