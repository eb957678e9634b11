#include "quell/adapters/jsonl/json_tree.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>

#include "quell/core/text/json_escape.h"

namespace quell::jsonl {
namespace {

bool IsNumberChar(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// Calls f(offset, token) for each number token outside strings, in document order (the order
// simdjson's DOM visits the numbers in). Only the rare texts that need it are walked so.
template <typename F>
void ForEachNumberToken(std::string_view text, F f) {
  bool in_string = false;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        i += 2;
        continue;
      }
      in_string = c != '"';
      ++i;
    } else if (c == '"') {
      in_string = true;
      ++i;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t end = i + 1;
      while (end < text.size() && IsNumberChar(text[end])) ++end;
      f(i, text.substr(i, end - i));
      i = end;
    } else {
      ++i;
    }
  }
}

bool IsIntegerToken(std::string_view token) {
  std::string_view digits = token;
  if (digits.starts_with('-')) digits.remove_prefix(1);
  if (digits.empty() || (digits[0] == '0' && digits.size() > 1)) return false;
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// An integer token nlohmann keeps as a double (simdjson refuses it): past uint64 or int64.
bool IsLongInteger(std::string_view token) {
  if (!IsIntegerToken(token)) return false;
  const char* end = token.data() + token.size();
  if (token.starts_with('-')) {
    int64_t value = 0;
    return std::from_chars(token.data(), end, value).ec == std::errc::result_out_of_range;
  }
  uint64_t value = 0;
  return std::from_chars(token.data(), end, value).ec == std::errc::result_out_of_range;
}

// `text` with ".0" after each integer too long for 64 bits, so that simdjson reads the double
// nlohmann reads (strtod of the digits; the fraction changes no bit); false when there is none.
bool RewriteLongIntegers(std::string_view text, std::string& out) {
  out.clear();
  size_t copied = 0;
  ForEachNumberToken(text, [&](size_t offset, std::string_view token) {
    if (!IsLongInteger(token)) return;
    const size_t end = offset + token.size();
    out.append(text.substr(copied, end - copied));
    out.append(".0");
    copied = end;
  });
  if (copied == 0) return false;
  out.append(text.substr(copied));
  return true;
}

// Whether `text` may hold a "-0" number token (signed for nlohmann, simdjson's 0 as any other):
// "-0" not followed by more of a number. Timestamps ("2026-01-02") do not match.
bool MayHoldNegativeZero(std::string_view text) {
  for (size_t at = text.find("-0"); at != std::string_view::npos; at = text.find("-0", at + 2)) {
    if (at + 2 == text.size() || !IsNumberChar(text[at + 2])) return true;
  }
  return false;
}

void AppendDouble(std::string& out, double value) {
  // nlohmann's own printer (shortest round trip, ".0" on whole numbers, "e+300").
  out += nlohmann::json(value).dump();
}

std::unique_ptr<simdjson::dom::parser> NewParser() {
  auto parser = std::make_unique<simdjson::dom::parser>();
  // A depth past simdjson's default: an upstream's evidence nested to that default is stored
  // two levels deeper in a snapshot. Out of memory here, the first parse tries again (and fails
  // as any allocation would); the capacity grows with the documents.
  const simdjson::error_code allocated =
      parser->allocate(simdjson::SIMDJSON_PADDING * 64, JsonTree::kMaxDepth);
  static_cast<void>(allocated);
  return parser;
}

}  // namespace

JsonTree::JsonTree() : parser_(NewParser()) {}

JsonTree::~JsonTree() = default;

size_t JsonTree::capacity() const { return parser_->capacity(); }

void JsonTree::Reset(size_t next_size) {
  if (parser_->capacity() > kKeptBytes && next_size <= kKeptBytes) {
    parser_ = NewParser();
    nodes_ = {};
    members_ = {};
    scratch_ = {};
    rewritten_ = {};
    negative_zeros_ = {};
  }
  nodes_.clear();
  members_.clear();
  scratch_.clear();
  negative_zeros_.clear();
  numbers_seen_ = 0;
  root_ = JsonValue();
}

bool JsonTree::Parse(std::string_view text) {
  Reset(text.size());
  // nlohmann skips a byte order mark, and ends its input at a NUL byte (one in a string is a
  // control character, refused either way).
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) text = text.substr(0, nul);

  simdjson::dom::element element;
  simdjson::error_code error = parser_->parse(text.data(), text.size()).get(element);
  if (error == simdjson::NUMBER_ERROR && RewriteLongIntegers(text, rewritten_)) {
    text = rewritten_;
    error = parser_->parse(text.data(), text.size()).get(element);
  }
  if (error) return false;
  if (MayHoldNegativeZero(text)) {
    uint32_t ordinal = 0;
    ForEachNumberToken(text, [&](size_t /*offset*/, std::string_view token) {
      if (token == "-0") negative_zeros_.push_back(ordinal);
      ++ordinal;
    });
  }
  root_ = JsonValue(this, Build(element));
  return true;
}

uint32_t JsonTree::Build(const simdjson::dom::element& element) {
  const auto index = static_cast<uint32_t>(nodes_.size());
  nodes_.emplace_back();
  Node node;
  switch (element.type()) {
    case simdjson::dom::element_type::NULL_VALUE:
      node.type = Type::kNull;
      break;
    case simdjson::dom::element_type::BOOL:
      node.type = element.get_bool().value_unsafe() ? Type::kTrue : Type::kFalse;
      break;
    case simdjson::dom::element_type::STRING:
      node.type = Type::kString;
      node.text = element.get_string().value_unsafe();
      break;
    case simdjson::dom::element_type::UINT64:
      node.type = Type::kUnsigned;
      node.number.u = element.get_uint64().value_unsafe();
      ++numbers_seen_;
      break;
    case simdjson::dom::element_type::INT64: {
      const int64_t value = element.get_int64().value_unsafe();
      const bool negative_zero =
          value == 0 &&
          std::binary_search(negative_zeros_.begin(), negative_zeros_.end(), numbers_seen_);
      ++numbers_seen_;
      if (value < 0 || negative_zero) {
        node.type = Type::kSigned;
        node.number.i = value;
      } else {
        node.type = Type::kUnsigned;
        node.number.u = static_cast<uint64_t>(value);
      }
      break;
    }
    case simdjson::dom::element_type::DOUBLE:
      node.type = Type::kDouble;
      node.number.d = element.get_double().value_unsafe();
      ++numbers_seen_;
      break;
    case simdjson::dom::element_type::ARRAY: {
      node.type = Type::kArray;
      const size_t mark = scratch_.size();
      const simdjson::dom::array array = element.get_array().value_unsafe();
      for (simdjson::dom::element item : array) {
        const uint32_t child = Build(item);
        scratch_.push_back({{}, child});
      }
      node.first = static_cast<uint32_t>(members_.size());
      node.count = static_cast<uint32_t>(scratch_.size() - mark);
      members_.insert(members_.end(), scratch_.begin() + static_cast<ptrdiff_t>(mark),
                      scratch_.end());
      scratch_.resize(mark);
      break;
    }
    case simdjson::dom::element_type::OBJECT: {
      node.type = Type::kObject;
      const size_t mark = scratch_.size();
      const simdjson::dom::object object = element.get_object().value_unsafe();
      for (simdjson::dom::key_value_pair member : object) {
        const uint32_t child = Build(member.value);
        scratch_.push_back({member.key, child});
      }
      const auto begin = scratch_.begin() + static_cast<ptrdiff_t>(mark);
      const auto by_name = [](const Member& a, const Member& b) { return a.name < b.name; };
      // quell writes its objects sorted; others are sorted here as nlohmann's map sorts them,
      // stably, so that of a repeated name the last (which nlohmann kept) comes last.
      if (!std::is_sorted(begin, scratch_.end(), by_name)) {
        std::stable_sort(begin, scratch_.end(), by_name);
      }
      node.first = static_cast<uint32_t>(members_.size());
      for (auto it = begin; it != scratch_.end(); ++it) {
        if (it + 1 != scratch_.end() && (it + 1)->name == it->name) continue;
        members_.push_back(*it);
      }
      node.count = static_cast<uint32_t>(members_.size() - node.first);
      scratch_.resize(mark);
      break;
    }
  }
  nodes_[index] = node;
  return index;
}

bool JsonValue::is_null() const {
  return tree_ && tree_->nodes_[index_].type == JsonTree::Type::kNull;
}

bool JsonValue::is_boolean() const {
  if (!tree_) return false;
  const JsonTree::Type type = tree_->nodes_[index_].type;
  return type == JsonTree::Type::kTrue || type == JsonTree::Type::kFalse;
}

bool JsonValue::is_string() const {
  return tree_ && tree_->nodes_[index_].type == JsonTree::Type::kString;
}

bool JsonValue::is_number() const {
  if (!tree_) return false;
  const JsonTree::Type type = tree_->nodes_[index_].type;
  return type == JsonTree::Type::kUnsigned || type == JsonTree::Type::kSigned ||
         type == JsonTree::Type::kDouble;
}

bool JsonValue::is_number_unsigned() const {
  return tree_ && tree_->nodes_[index_].type == JsonTree::Type::kUnsigned;
}

bool JsonValue::is_number_integer() const {
  if (!tree_) return false;
  const JsonTree::Type type = tree_->nodes_[index_].type;
  return type == JsonTree::Type::kUnsigned || type == JsonTree::Type::kSigned;
}

bool JsonValue::is_array() const {
  return tree_ && tree_->nodes_[index_].type == JsonTree::Type::kArray;
}

bool JsonValue::is_object() const {
  return tree_ && tree_->nodes_[index_].type == JsonTree::Type::kObject;
}

bool JsonValue::boolean() const {
  return tree_ && tree_->nodes_[index_].type == JsonTree::Type::kTrue;
}

std::string_view JsonValue::string() const {
  return is_string() ? tree_->nodes_[index_].text : std::string_view();
}

uint64_t JsonValue::number_unsigned() const {
  return is_number_unsigned() ? tree_->nodes_[index_].number.u : 0;
}

double JsonValue::number_double() const {
  if (!is_number()) return 0;
  const JsonTree::Node& node = tree_->nodes_[index_];
  switch (node.type) {
    case JsonTree::Type::kUnsigned:
      return static_cast<double>(node.number.u);
    case JsonTree::Type::kSigned:
      return static_cast<double>(node.number.i);
    default:
      return node.number.d;
  }
}

size_t JsonValue::size() const {
  return is_array() || is_object() ? tree_->nodes_[index_].count : 0;
}

JsonValue JsonValue::at(size_t i) const {
  if (i >= size()) return {};
  return {tree_, tree_->members_[tree_->nodes_[index_].first + i].node};
}

std::string_view JsonValue::name(size_t i) const {
  if (!is_object() || i >= size()) return {};
  return tree_->members_[tree_->nodes_[index_].first + i].name;
}

JsonValue JsonValue::find(std::string_view member) const {
  if (!is_object()) return {};
  // A scan, not a binary search over the sorted names: most names differ in length, which is
  // cheaper to see than to order them (callgrind: the search cost 0.5 us more a row).
  const JsonTree::Node& node = tree_->nodes_[index_];
  for (uint32_t i = node.first; i < node.first + node.count; ++i) {
    if (tree_->members_[i].name == member) return {tree_, tree_->members_[i].node};
  }
  return {};
}

void JsonValue::AppendCompact(std::string& out) const {
  if (!tree_) return;
  const JsonTree::Node& node = tree_->nodes_[index_];
  switch (node.type) {
    case JsonTree::Type::kNull:
      out += "null";
      return;
    case JsonTree::Type::kFalse:
      out += "false";
      return;
    case JsonTree::Type::kTrue:
      out += "true";
      return;
    case JsonTree::Type::kString:
      core::AppendJsonString(out, node.text, core::LineSeparators::kVerbatim);
      return;
    case JsonTree::Type::kUnsigned:
    case JsonTree::Type::kSigned: {
      char buffer[24];
      const auto [end, ec] = node.type == JsonTree::Type::kUnsigned
                                 ? std::to_chars(buffer, buffer + sizeof buffer, node.number.u)
                                 : std::to_chars(buffer, buffer + sizeof buffer, node.number.i);
      out.append(buffer, end);
      return;
    }
    case JsonTree::Type::kDouble:
      AppendDouble(out, node.number.d);
      return;
    case JsonTree::Type::kArray:
    case JsonTree::Type::kObject: {
      const bool object = node.type == JsonTree::Type::kObject;
      out += object ? '{' : '[';
      for (uint32_t i = 0; i < node.count; ++i) {
        if (i > 0) out += ',';
        const JsonTree::Member& member = tree_->members_[node.first + i];
        if (object) {
          core::AppendJsonString(out, member.name, core::LineSeparators::kVerbatim);
          out += ':';
        }
        JsonValue(tree_, member.node).AppendCompact(out);
      }
      out += object ? '}' : ']';
      return;
    }
  }
}

std::string JsonValue::Compact() const {
  std::string out;
  AppendCompact(out);
  return out;
}

}  // namespace quell::jsonl
