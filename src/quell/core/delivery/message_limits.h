#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace quell::core {

// Per-channel length limits on rendered text. Pure; cutting never splits a UTF-8 sequence.

inline constexpr size_t kPagerDutySummaryMaxChars = 1024;
inline constexpr size_t kSlackTextMaxChars = 3000;
inline constexpr size_t kEmailSubjectMaxChars = 200;
inline constexpr size_t kDefaultSmsMaxSegments = 2;
// Opsgenie's Alert API: an alert's message and description
// (https://docs.opsgenie.com/docs/alert-api).
inline constexpr size_t kOpsgenieMessageMaxChars = 130;
inline constexpr size_t kOpsgenieDescriptionMaxChars = 15000;

enum class SmsEncoding { kGsm7, kUcs2 };

struct SmsCount {
  SmsEncoding encoding = SmsEncoding::kGsm7;
  size_t units = 0;     // GSM-7 septets (an extension character takes 2) or UTF-16 code units
  size_t segments = 0;  // 0 for the empty text
};

// How an SMS carrier bills `text`: GSM-7 when every character is in the GSM 03.38 basic or
// extension table, else UCS-2. One segment holds 160 septets or 70 code units; a longer text
// goes in parts of 153 or 67 (the rest is the concatenation header), and a character is never
// split across parts. Bytes that are not valid UTF-8 count as U+FFFD (UCS-2).
SmsCount CountSms(std::string_view text);

// `text` unchanged when it fits in `max_segments` (at least 1), else its longest prefix that
// fits together with an ellipsis: "..." while the text stays GSM-7 ("…" is not GSM-7 and would
// turn the whole message into UCS-2), "…" when it is UCS-2 anyway.
std::string FitSms(std::string_view text, size_t max_segments = kDefaultSmsMaxSegments);

// `text` unchanged when it has at most `max_chars` (at least 1) code points, else its first
// max_chars - 1 code points and "…". An invalid byte counts as one code point.
std::string CutToChars(std::string_view text, size_t max_chars);

// `text` on one line: every run of CR, LF and tab becomes one space; leading and trailing
// spaces go. For headers and summaries, where a line break would end the field.
std::string OneLine(std::string_view text);

}  // namespace quell::core
