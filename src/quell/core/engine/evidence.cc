#include "quell/core/engine/evidence.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/text/json_escape.h"

namespace quell::core {
namespace {

constexpr size_t kMinBytes = 64;
constexpr size_t kMaxKeyBytes = 64;
// Below this, a shortened field shows too little to be worth its key.
constexpr size_t kMinPartialValue = 32;
constexpr std::string_view kTruncated = "\"truncated\":true";

// The first `max_lines` lines of `text` (all when 0) and how many lines were left out.
std::pair<std::string_view, size_t> HeadLines(std::string_view text, size_t max_lines) {
  if (max_lines == 0) return {text, 0};
  size_t pos = 0;
  for (size_t line = 0; line < max_lines; ++line) {
    pos = text.find('\n', pos);
    if (pos == std::string_view::npos) return {text, 0};
    ++pos;
  }
  const std::string_view rest = text.substr(pos);
  if (rest.empty()) return {text, 0};
  const auto newlines = static_cast<size_t>(std::count(rest.begin(), rest.end(), '\n'));
  return {text.substr(0, pos - 1), newlines + (rest.back() == '\n' ? 0 : 1)};
}

struct Entry {
  std::string key;    // a JSON literal
  std::string value;  // redacted text
};

// "key":"value". Join writes it straight into the whole object; only truncation, the rare
// path, needs it on its own.
std::string EntryJson(const Entry& e) {
  std::string json = e.key;
  json.push_back(':');
  AppendJsonString(json, e.value);
  return json;
}

void AppendEntry(std::string& out, const Entry& e) {
  out.append(e.key).push_back(':');
  AppendJsonString(out, e.value);
}

class EntryMaker {
 public:
  EntryMaker(const RedactOptions& redact, const EvidenceOptions& options, RedactStats& stats)
      : redact_(redact), key_redact_(redact), options_(options), stats_(stats) {
    key_redact_.max_text = kMaxKeyBytes;
  }

  Entry Make(std::string_view name, std::string_view raw) {
    Entry e;
    AppendJsonString(e.key, Redact(name, key_redact_, stats_));
    if (LooksSecretKey(name) && !raw.empty()) {
      // The name says what the value is; its text is not even worth scanning.
      e.value = "[secret]";
      ++stats_.secrets;
    } else {
      const auto [head, dropped] = HeadLines(raw, options_.max_lines);
      e.value = Redact(head, redact_, stats_);
      if (dropped > 0) e.value.append("\n\xE2\x80\xA6[+" + std::to_string(dropped) + " lines]");
    }
    return e;
  }

 private:
  const RedactOptions& redact_;
  RedactOptions key_redact_;
  const EvidenceOptions& options_;
  RedactStats& stats_;
};

bool IsReserved(std::string_view name) { return name == "tags" || name == "truncated"; }

std::string Join(const std::vector<Entry>& fields, const std::vector<Entry>& tags) {
  std::string out = "{";
  size_t estimate = 16;
  for (const Entry& e : fields) estimate += e.key.size() + e.value.size() + 4;
  for (const Entry& e : tags) estimate += e.key.size() + e.value.size() + 4;
  out.reserve(estimate);
  for (const Entry& e : fields) {
    if (out.size() > 1) out.push_back(',');
    AppendEntry(out, e);
  }
  if (!tags.empty()) {
    out.append(out.size() > 1 ? ",\"tags\":{" : "\"tags\":{");
    for (size_t k = 0; k < tags.size(); ++k) {
      if (k > 0) out.push_back(',');
      AppendEntry(out, tags[k]);
    }
    out.push_back('}');
  }
  out.push_back('}');
  return out;
}

// Appends entries while they fit in max_bytes less the room kept for ,"truncated":true}.
class TruncatingWriter {
 public:
  explicit TruncatingWriter(size_t max_bytes) : limit_(max_bytes - kTruncated.size() - 2) {}

  bool TryAppend(std::string_view json) {
    const std::string_view comma = Comma();
    if (out_.size() + comma.size() + json.size() > limit_) return false;
    out_.append(comma).append(json);
    return true;
  }

  // The field that did not fit, shortened, when enough of it shows to be useful.
  void AppendShortened(const Entry& e) {
    const std::string_view comma = Comma();
    const size_t used = out_.size() + comma.size() + e.key.size() + 1;
    if (used + kMinPartialValue > limit_) return;
    out_.append(comma).append(e.key).append(":");
    (void)AppendJsonStringWithin(out_, e.value, limit_ - out_.size());
  }

  // Opens "tags":{ if the first tag fits with it and the closing brace.
  bool OpenTags(std::string_view first_tag) {
    const std::string_view comma = Comma();
    constexpr std::string_view kOpen = "\"tags\":{";
    if (out_.size() + comma.size() + kOpen.size() + first_tag.size() + 1 > limit_) return false;
    out_.append(comma).append(kOpen).append(first_tag);
    --limit_;  // the closing brace of tags
    return true;
  }

  void CloseTags() {
    out_.push_back('}');
    ++limit_;
  }

  std::string Finish() && {
    out_.append(Comma()).append(kTruncated).append("}");
    return std::move(out_);
  }

 private:
  std::string_view Comma() const { return out_.size() > 1 ? "," : ""; }

  std::string out_ = "{";
  size_t limit_;
};

std::string Truncate(const std::vector<Entry>& fields, const std::vector<Entry>& tags,
                     size_t max_bytes) {
  TruncatingWriter writer(max_bytes);
  for (const Entry& e : fields) {
    if (!writer.TryAppend(EntryJson(e))) {
      writer.AppendShortened(e);
      return std::move(writer).Finish();
    }
  }
  if (!tags.empty() && writer.OpenTags(EntryJson(tags[0]))) {
    for (size_t k = 1; k < tags.size(); ++k) {
      if (!writer.TryAppend(EntryJson(tags[k]))) break;
    }
    writer.CloseTags();
  }
  return std::move(writer).Finish();
}

}  // namespace

std::string BuildEvidence(const EvidenceInput& input, const RedactOptions& redact,
                          const EvidenceOptions& options) {
  RedactStats ignored;
  return BuildEvidence(input, redact, options, ignored);
}

std::string BuildEvidence(const EvidenceInput& input, const RedactOptions& redact,
                          const EvidenceOptions& options, RedactStats& stats) {
  EntryMaker maker(redact, options, stats);
  std::vector<Entry> fields;
  fields.reserve(input.fields.size());
  for (const auto& [name, value] : input.fields) {
    if (!IsReserved(name)) fields.push_back(maker.Make(name, value));
  }
  std::vector<Entry> tags;
  tags.reserve(input.tags.size());
  for (const auto& [name, value] : input.tags) tags.push_back(maker.Make(name, value));
  std::string whole = Join(fields, tags);
  const size_t max_bytes = std::max(options.max_bytes, kMinBytes);
  return whole.size() <= max_bytes ? whole : Truncate(fields, tags, max_bytes);
}

}  // namespace quell::core
