#include "quell/adapters/store_common/incident_codec.h"

#include <algorithm>
#include <cstring>

#include "quell/core/text/json_escape.h"

namespace quell::store {

std::string EncodeEvidence(const std::vector<std::string>& evidence) {
  std::string out = "[";
  for (size_t i = 0; i < evidence.size(); ++i) {
    if (i > 0) out += ',';
    out += evidence[i];
  }
  out += ']';
  return out;
}

core::Result<std::vector<std::string>> DecodeEvidence(std::string_view text) {
  // Every entry was stored as compact JSON, so splitting the array at its top-level commas is
  // enough; a full JSON parse of every loaded incident was the largest cost of an unchanged key.
  std::vector<std::string> out;
  auto corrupt = [] {
    return core::MakeError(core::ErrorCode::kCorrupt, "recent_evidence is not a JSON array");
  };
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return corrupt();
  if (text.size() == 2) return out;
  int depth = 0;
  bool in_string = false;
  size_t start = 1;
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    if (in_string) {
      // To the closing quote: the next one not escaped, i.e. after an even run of backslashes.
      const size_t end = text.size() - 1;
      const void* found = std::memchr(text.data() + i, '"', end - i);
      if (found == nullptr) return corrupt();
      const auto quote = static_cast<size_t>(static_cast<const char*>(found) - text.data());
      size_t backslashes = 0;
      while (quote - backslashes > i && text[quote - backslashes - 1] == '\\') ++backslashes;
      i = quote;
      in_string = backslashes % 2 == 1;
      continue;
    }
    const char c = text[i];
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth < 0) return corrupt();
    } else if (c == ',' && depth == 0) {
      if (i == start) return corrupt();
      out.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (in_string || depth != 0 || start >= text.size() - 1) return corrupt();
  out.emplace_back(text.substr(start, text.size() - 1 - start));
  return out;
}

std::string EncodeLabels(const core::Labels& labels) {
  std::string out;
  core::AppendLabelsJson(out, labels);
  return out;
}

namespace {

void AppendUtf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

// Reads the JSON string literal at text[pos] (its opening quote) into `out`; false when it is
// not one. Leaves `pos` past the closing quote.
bool ReadJsonString(std::string_view text, size_t& pos, std::string& out) {
  if (pos >= text.size() || text[pos] != '"') return false;
  const auto hex4 = [&text](size_t at, uint32_t& code) {
    if (at + 4 > text.size()) return false;
    code = 0;
    for (size_t i = at; i < at + 4; ++i) {
      const char c = text[i];
      const int digit = c >= '0' && c <= '9'   ? c - '0'
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                               : -1;
      if (digit < 0) return false;
      code = code * 16 + static_cast<uint32_t>(digit);
    }
    return true;
  };
  for (++pos; pos < text.size(); ++pos) {
    // The run up to the next quote or escape, appended at once (most strings have no escape).
    size_t run = pos;
    while (run < text.size() && text[run] != '"' && text[run] != '\\') ++run;
    out.append(text.substr(pos, run - pos));
    pos = run;
    if (pos >= text.size()) return false;
    if (text[pos] == '"') {
      ++pos;
      return true;
    }
    if (++pos >= text.size()) return false;
    switch (text[pos]) {
      case '"':
      case '\\':
      case '/':
        out.push_back(text[pos]);
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        uint32_t code = 0;
        if (!hex4(pos + 1, code)) return false;
        pos += 4;
        uint32_t low = 0;
        if (code >= 0xd800 && code < 0xdc00 && pos + 6 < text.size() && text[pos + 1] == '\\' &&
            text[pos + 2] == 'u' && hex4(pos + 3, low) && low >= 0xdc00 && low < 0xe000) {
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          pos += 6;
        }
        AppendUtf8(out, code);
        break;
      }
      default:
        return false;
    }
  }
  return false;
}

}  // namespace

core::Result<core::Labels> DecodeLabels(std::string_view text) {
  const auto corrupt = [] {
    return core::MakeError(core::ErrorCode::kCorrupt, "labels is not a JSON object of strings");
  };
  core::Labels out;
  size_t pos = 0;
  const auto skip_space = [&] {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\t' || text[pos] == '\r')) {
      ++pos;
    }
  };
  skip_space();
  if (pos >= text.size() || text[pos] != '{') return corrupt();
  ++pos;
  skip_space();
  if (pos < text.size() && text[pos] == '}') {
    ++pos;
  } else {
    for (;;) {
      std::string name;
      std::string value;
      skip_space();
      if (!ReadJsonString(text, pos, name)) return corrupt();
      skip_space();
      if (pos >= text.size() || text[pos] != ':') return corrupt();
      ++pos;
      skip_space();
      if (!ReadJsonString(text, pos, value)) return corrupt();
      out.emplace_back(std::move(name), std::move(value));
      skip_space();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == '}') {
        ++pos;
        break;
      }
      return corrupt();
    }
  }
  skip_space();
  if (pos != text.size()) return corrupt();
  // Stored sorted (EncodeLabels of sorted labels): the sort is for rows written otherwise.
  if (!std::is_sorted(out.begin(), out.end())) std::sort(out.begin(), out.end());
  return out;
}

core::Result<core::IncidentStatus> ParseIncidentStatus(std::string_view name) {
  for (auto status : {core::IncidentStatus::kNone, core::IncidentStatus::kOpen,
                      core::IncidentStatus::kResolved}) {
    if (name == core::IncidentStatusName(status)) return status;
  }
  return core::MakeError(core::ErrorCode::kCorrupt,
                         "unknown incident status \"" + std::string(name) + "\"");
}

}  // namespace quell::store
