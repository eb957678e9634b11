#include "quell/core/conditions/key_template.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "quell/core/redact/redact_label.h"
#include "quell/core/text/hex.h"
#include "quell/core/text/sha256.h"
#include "quell/core/text/utf8.h"

namespace quell::core {
namespace {

constexpr std::string_view kDefaultFallback = "-";
constexpr size_t kDigestBytes = 6;  // 12 hex digits after "~h": two long keys stay apart

Error TemplateError(std::string_view text, size_t column, std::string_view what) {
  return MakeError(ErrorCode::kInvalidArgument, "key template \"" + std::string(text) +
                                                    "\", column " + std::to_string(column + 1) +
                                                    ": " + std::string(what));
}

// Values come from a remote service: keep them printable and free of the template's own
// syntax, so a tag value "a}:{b" cannot make two different groups render the same key.
char Sanitized(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 || u == 0x7f || c == '{' || c == '}') ? '_' : c;
}

void AppendSanitized(std::string& out, std::string_view value) {
  for (const char c : value) out.push_back(Sanitized(c));
}

// The group's own id names it upstream and is never personal data; a numeric id must not be
// read as a phone number and hashed.
bool IsIdField(std::string_view field) { return field == "error_group_id" || field == "id"; }

void AppendHex(std::string& out, std::string_view value, size_t bytes) {
  const std::array<uint8_t, 32> digest = Sha256(value);
  core::AppendHex(out, std::span<const uint8_t>(digest).first(bytes));
}

// The label name a field gives ("tags.api_key" -> "api_key"), which says whether its value is a
// credential.
std::string_view NameOf(std::string_view field) {
  const size_t dot = field.rfind('.');
  return dot == std::string_view::npos ? field : field.substr(dot + 1);
}

// A value as the key and the labels show it: the group id as sent, any other value as every
// label is redacted (core::AppendRedactedLabelValue: a credential-named field as "[secret]", a
// secret inside a value as "[secret]", personal data as its pseudonym), then sanitized.
void AppendValue(std::string& out, std::string_view field, std::string_view value) {
  if (IsIdField(field)) {
    AppendSanitized(out, value);
    return;
  }
  static const RedactOptions kOptions;
  const size_t start = out.size();
  AppendRedactedLabelValue(out, NameOf(field), value, kOptions);
  for (size_t i = start; i < out.size(); ++i) out[i] = Sanitized(out[i]);
}

// Cuts the key that starts at out[start] to `max_bytes`, keeping it distinct by its digest.
void Bound(std::string& out, size_t start, size_t max_bytes) {
  const std::string_view key = std::string_view{out}.substr(start);
  constexpr size_t kSuffix = 2 + 2 * kDigestBytes;  // "~h" and the hex digits
  if (key.size() <= max_bytes || max_bytes <= kSuffix) return;
  std::string suffix = "~h";
  AppendHex(suffix, key, kDigestBytes);
  out.resize(start + Utf8CutPoint(key, max_bytes - kSuffix));
  out += suffix;
}

}  // namespace

Result<KeyTemplate> KeyTemplate::Parse(std::string_view text) {
  KeyTemplate parsed;
  parsed.text_ = std::string(text);
  bool has_field = false;
  size_t i = 0;
  std::string literal;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '}') return TemplateError(text, i, "'}' without a matching '{'");
    if (c != '{') {
      literal.push_back(c);
      ++i;
      continue;
    }
    const size_t close = text.find('}', i + 1);
    if (close == std::string_view::npos) return TemplateError(text, i, "'{' is never closed");
    std::string_view body = text.substr(i + 1, close - i - 1);
    if (body.find('{') != std::string_view::npos) {
      return TemplateError(text, i, "placeholders cannot nest");
    }
    Part field{.is_field = true,
               .text = {},
               .fallback = std::string(kDefaultFallback),
               .has_fallback = false};
    if (const size_t bar = body.find('|'); bar != std::string_view::npos) {
      field.fallback = std::string(body.substr(bar + 1));
      field.has_fallback = true;
      body = body.substr(0, bar);
    }
    if (body.empty()) return TemplateError(text, i, "empty placeholder");
    field.text = std::string(body);
    if (!literal.empty()) {
      parsed.parts_.push_back(Part{
          .is_field = false, .text = std::move(literal), .fallback = {}, .has_fallback = false});
      literal.clear();
    }
    parsed.parts_.push_back(std::move(field));
    has_field = true;
    i = close + 1;
  }
  if (!literal.empty()) {
    parsed.parts_.push_back(
        Part{.is_field = false, .text = std::move(literal), .fallback = {}, .has_fallback = false});
  }
  if (!has_field) {
    return TemplateError(text, 0, "has no {field}: every item would share one key");
  }
  return parsed;
}

void KeyTemplate::AppendTo(std::string& out, const Lookup& lookup) const {
  AppendNoting(out, lookup, nullptr);
}

void KeyTemplate::AppendTo(std::string& out, const Lookup& lookup, Rendered& rendered) const {
  AppendNoting(out, lookup, &rendered);
}

void KeyTemplate::AppendNoting(std::string& out, const Lookup& lookup, Rendered* rendered) const {
  if (rendered != nullptr) rendered->values.clear();
  const size_t start = out.size();
  for (size_t p = 0; p < parts_.size(); ++p) {
    const Part& part = parts_[p];
    if (!part.is_field) {
      out += part.text;
      continue;
    }
    const std::optional<std::string_view> value = lookup(part.text);
    if (!value || value->empty()) {
      AppendSanitized(out, part.fallback);
    } else {
      const size_t begin = out.size();
      AppendValue(out, part.text, *value);
      if (rendered != nullptr) {
        rendered->values.push_back({.part = p, .begin = begin, .end = out.size()});
      }
    }
  }
  const size_t size = out.size();
  Bound(out, start, max_bytes_);
  if (rendered != nullptr) rendered->whole = out.size() == size;
}

namespace {

// A label's name: the placeholder's field, less the "tags." of a tag.
std::string_view LabelName(std::string_view field) {
  if (field.starts_with("tags.")) field.remove_prefix(5);
  return field;
}

// Sorted by name; the first of two placeholders with one name wins.
void SortLabels(Labels& labels) {
  std::stable_sort(labels.begin(), labels.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  labels.erase(std::unique(labels.begin(), labels.end(),
                           [](const auto& a, const auto& b) { return a.first == b.first; }),
               labels.end());
}

}  // namespace

Labels KeyTemplate::LabelsOf(const Lookup& lookup) const {
  Labels labels;
  for (const Part& part : parts_) {
    if (!part.is_field) continue;
    const std::optional<std::string_view> value = lookup(part.text);
    if (!value || value->empty()) continue;
    std::string rendered;
    AppendValue(rendered, part.text, *value);
    Bound(rendered, 0, max_bytes_);
    labels.emplace_back(std::string(LabelName(part.text)), std::move(rendered));
  }
  SortLabels(labels);
  return labels;
}

Labels KeyTemplate::LabelsOf(std::string_view out, const Rendered& rendered,
                             const Lookup& lookup) const {
  // A whole key is within the bound, so each value in it is too: the bound cuts none of them.
  if (!rendered.whole) return LabelsOf(lookup);
  Labels labels;
  labels.reserve(rendered.values.size());
  for (const Rendered::Value& value : rendered.values) {
    labels.emplace_back(std::string(LabelName(parts_[value.part].text)),
                        std::string(out.substr(value.begin, value.end - value.begin)));
  }
  SortLabels(labels);
  return labels;
}

std::string KeyTemplate::Render(const Lookup& lookup) const {
  std::string out;
  AppendTo(out, lookup);
  return out;
}

std::optional<std::string> KeyTemplate::MissingField(const Lookup& lookup) const {
  for (const Part& part : parts_) {
    if (!part.is_field || part.has_fallback) continue;
    const std::optional<std::string_view> value = lookup(part.text);
    if (!value || value->empty()) return part.text;
  }
  return std::nullopt;
}

std::vector<std::string> KeyTemplate::Fields() const {
  std::vector<std::string> fields;
  for (const Part& part : parts_) {
    if (part.is_field) fields.push_back(part.text);
  }
  return fields;
}

}  // namespace quell::core
