#include "quell/adapters/channels/email/mime_message.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "quell/core/delivery/message_limits.h"
#include "quell/core/text/base64.h"
#include "quell/core/text/utf8.h"

namespace quell::email {
namespace {

constexpr size_t kQpLine = 76;
// 45 bytes make 60 base64 characters: with "=?UTF-8?B?" and "?=" a 72-character word.
constexpr size_t kWordBytes = 45;

constexpr std::array<const char*, 7> kDays = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

bool IsPrintableAscii(std::string_view text) {
  for (const char c : text) {
    if (c < 0x20 || c > 0x7E) return false;
  }
  return true;
}

void AppendHex(std::string& out, uint8_t byte) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += '=';
  out += kHex[byte >> 4U];
  out += kHex[byte & 15U];
}

void AppendQpLine(std::string& out, std::string_view line) {
  size_t column = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const auto byte = static_cast<uint8_t>(line[i]);
    const bool last = i + 1 == line.size();
    // Trailing white space would be stripped in transit, so it is encoded at a line's end.
    const bool literal =
        (byte >= 33 && byte <= 126 && byte != '=') || ((byte == ' ' || byte == '\t') && !last);
    const size_t width = literal ? 1 : 3;
    // A soft break ("=") keeps every line within 76 characters, the "=" included.
    if (column + width > kQpLine - 1 && !(last && column + width <= kQpLine)) {
      out += "=\r\n";
      column = 0;
    }
    if (literal) {
      out += static_cast<char>(byte);
    } else {
      AppendHex(out, byte);
    }
    column += width;
  }
}

}  // namespace

std::string FormatRfc5322Date(core::WallTime t) {
  const auto day = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day ymd{day};
  const std::chrono::hh_mm_ss hms{std::chrono::floor<std::chrono::seconds>(t - day)};
  const auto weekday = static_cast<size_t>(((day.time_since_epoch().count() % 7) + 7) % 7);
  char text[40];
  std::snprintf(text, sizeof text, "%s, %02u %s %04d %02d:%02d:%02d +0000", kDays[weekday],
                static_cast<unsigned>(ymd.day()), kMonths[static_cast<unsigned>(ymd.month()) - 1],
                static_cast<int>(ymd.year()), static_cast<int>(hms.hours().count()),
                static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()));
  return text;
}

std::string EncodeHeaderText(std::string_view text) {
  if (IsPrintableAscii(text)) return std::string(text);
  std::string out;
  while (!text.empty()) {
    size_t take = core::Utf8CutPoint(text, kWordBytes);
    if (take == 0) take = 1;  // an invalid byte goes alone
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?";
    core::AppendBase64(out, text.substr(0, take));
    out += "?=";
    text.remove_prefix(take);
  }
  return out;
}

std::string EncodeQuotedPrintable(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  while (true) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    AppendQpLine(out, line);
    if (end == std::string_view::npos) break;
    out += "\r\n";
    text.remove_prefix(end + 1);
  }
  return out;
}

std::string EnvelopeAddress(std::string_view mailbox) {
  const size_t open = mailbox.rfind('<');
  const size_t close = mailbox.rfind('>');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
    return std::string(mailbox.substr(open + 1, close - open - 1));
  }
  const size_t first = mailbox.find_first_not_of(' ');
  if (first == std::string_view::npos) return "";
  const size_t last = mailbox.find_last_not_of(' ');
  return std::string(mailbox.substr(first, last - first + 1));
}

std::string EncodeMailbox(std::string_view mailbox) {
  const size_t open = mailbox.rfind('<');
  if (open == std::string_view::npos || IsPrintableAscii(mailbox)) return std::string(mailbox);
  std::string_view name = mailbox.substr(0, open);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
    name = name.substr(1, name.size() - 2);
  }
  std::string out = EncodeHeaderText(name);
  out += ' ';
  out.append(mailbox.substr(open));
  return out;
}

bool IsSafeHeaderValue(std::string_view value) {
  return value.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

std::string BuildMimeMessage(const MailParts& parts) {
  std::string out;
  const auto header = [&out](std::string_view name, std::string_view value) {
    out.append(name);
    out.append(": ");
    out.append(value);
    out.append("\r\n");
  };
  header("Date", FormatRfc5322Date(parts.date));
  header("From", EncodeMailbox(parts.from));
  std::string to;
  for (const std::string& address : parts.to) {
    if (!to.empty()) to.append(",\r\n ");
    to.append(EncodeMailbox(address));
  }
  header("To", to);
  header("Subject", EncodeHeaderText(core::OneLine(parts.subject)));
  header("Message-ID", parts.message_id);
  if (!parts.in_reply_to.empty()) header("In-Reply-To", parts.in_reply_to);
  if (!parts.references.empty()) header("References", parts.references);
  for (const auto& [name, value] : parts.extra_headers) header(name, value);
  header("MIME-Version", "1.0");
  header("Content-Type", "text/plain; charset=utf-8");
  header("Content-Transfer-Encoding", "quoted-printable");
  out.append("\r\n");
  out.append(EncodeQuotedPrintable(parts.body));
  out.append("\r\n");
  return out;
}

}  // namespace quell::email
