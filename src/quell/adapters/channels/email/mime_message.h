#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "quell/core/text/time.h"

namespace quell::email {

// What one alert e-mail says; BuildMimeMessage turns it into RFC 5322 text.
struct MailParts {
  std::string from;             // "quell <alerts@example.com>" or a bare address
  std::vector<std::string> to;  // the same forms
  std::string subject;          // UTF-8, one line (line breaks are folded into spaces)
  std::string body;             // UTF-8 plain text; LF or CRLF line ends
  std::string message_id;       // "<...@...>"
  std::string in_reply_to;      // "<...@...>" or empty
  std::string references;       // space-separated "<...>" ids or empty
  std::vector<std::pair<std::string, std::string>> extra_headers;  // ASCII names and values
  core::WallTime date;
};

// The whole message with CRLF line ends: Date, From, To, Subject (an RFC 2047 encoded-word
// when not ASCII), Message-ID, threading headers, MIME-Version, text/plain; charset=utf-8 in
// quoted-printable. Dot-stuffing is left to the SMTP client (libcurl does it).
std::string BuildMimeMessage(const MailParts& parts);

// "Wed, 02 Dec 2026 09:00:00 +0000" (RFC 5322 section 3.3), always in UTC.
std::string FormatRfc5322Date(core::WallTime t);

// `subject` as a header value: itself when printable ASCII, else UTF-8 "B" encoded-words of at
// most 75 characters each, folded onto continuation lines, never splitting a character.
std::string EncodeHeaderText(std::string_view text);

// Quoted-printable (RFC 2045 6.7) with CRLF hard line breaks and lines of at most 76.
std::string EncodeQuotedPrintable(std::string_view text);

// `mailbox` for a From or To header: a non-ASCII display name ("Équipe <ops@x>") becomes
// encoded-words; the address itself is left alone.
std::string EncodeMailbox(std::string_view mailbox);

// The addr-spec of "Name <addr>" or a bare address, for the SMTP envelope.
std::string EnvelopeAddress(std::string_view mailbox);

// True when `value` may go into a header as is: no CR, LF or NUL (header injection).
bool IsSafeHeaderValue(std::string_view value);

}  // namespace quell::email
