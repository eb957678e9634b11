// HTTP paths and queries (docs/operations.md, "Fuzzing"): the input as a request's query string,
// split and percent-decoded as the HTTP front hands it to a route, then read by every list
// route's filter parser; and the text helpers that meet path and query bytes (UTF-8 cuts, URL
// encoding, URL masking) with the properties they promise. Input: the query string.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_input.h"
#include "quell/app/operator_queries.h"
#include "quell/core/text/url.h"
#include "quell/core/text/utf8.h"

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoded, '+' a space in a query (a malformed % is kept as it is).
std::string PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else if (plus_is_space && text[i] == '+') {
      out += ' ';
    } else {
      out += text[i];
    }
  }
  return out;
}

bool Unreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

void CheckTextHelpers(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const size_t length = quell::core::Utf8SequenceLength(text, i);
    quell::fuzz::Require(length <= 4 && i + length <= text.size(), "a UTF-8 sequence past the end");
  }
  for (size_t max : {size_t{0}, size_t{1}, size_t{3}, text.size() / 2, text.size() + 1}) {
    const size_t cut = quell::core::Utf8CutPoint(text, max);
    quell::fuzz::Require(cut <= max && cut <= text.size(), "a UTF-8 cut past its bound");
    // The cut never splits a well-formed sequence: none that starts before it ends after it.
    for (size_t i = cut >= 3 ? cut - 3 : 0; i < cut; ++i) {
      const size_t length = quell::core::Utf8SequenceLength(text, i);
      quell::fuzz::Require(i + length <= cut, "a UTF-8 cut inside a sequence");
    }
  }
  const std::string encoded = quell::core::UrlEncode(text);
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] == '%') {
      quell::fuzz::Require(
          i + 2 < encoded.size() && HexValue(encoded[i + 1]) >= 0 && HexValue(encoded[i + 2]) >= 0,
          "a % without two hex digits in UrlEncode's output");
      i += 2;
    } else {
      quell::fuzz::Require(Unreserved(encoded[i]), "a reserved byte left in UrlEncode's output");
    }
  }
  quell::fuzz::Require(PercentDecode(encoded, false) == text, "UrlEncode does not decode back");
  (void)quell::core::MaskUrlPassword(text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view query(reinterpret_cast<const char*>(data), size);  // NOLINT
  quell::app::QueryParams params;
  std::string_view rest = query;
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const size_t eq = pair.find('=');
    // The first of a repeated name wins, as OpsRequest::query keeps it.
    params.emplace(
        PercentDecode(pair.substr(0, eq), true),
        eq == std::string_view::npos ? std::string() : PercentDecode(pair.substr(eq + 1), true));
  }
  (void)quell::app::IncidentFilterFrom(params);
  (void)quell::app::OutboxFilterFrom(params);
  (void)quell::app::DeadFilterFrom(params);
  (void)quell::app::HistoryLimitFrom(params);
  (void)quell::app::TimelineLimitFrom(params);
  for (const auto& [name, value] : params) {
    CheckTextHelpers(name);
    CheckTextHelpers(value);
  }
  CheckTextHelpers(query);
  return 0;
}
