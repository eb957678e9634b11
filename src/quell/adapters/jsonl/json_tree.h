#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

// A JSON document parsed by simdjson into the value model nlohmann-json builds, so that the
// outbox codec reads and prints a payload exactly as it did with nlohmann's DOM, at a fraction
// of the cost (no map node or string per member). What the model keeps from nlohmann:
//  - an object's members sorted by name (byte order), the last of a repeated name winning;
//  - numbers typed by their text: digits without a sign are unsigned, with '-' signed ("-0"
//    included), anything else (a fraction, an exponent, an integer past 64 bits) a double;
//  - a leading UTF-8 byte order mark skipped; whatever nlohmann refuses is refused.
// One difference stays: nesting deeper than kMaxDepth is refused (quell writes no such payload;
// its inputs refuse depths past simdjson's 1024).
namespace simdjson::dom {
class element;
class parser;
}  // namespace simdjson::dom

namespace quell::jsonl {

class JsonTree;

// One value of a parsed tree: a cheap handle, valid until the tree parses again. A default
// handle is "absent" (what find() returns for a missing member): every is_*() is false.
class JsonValue {
 public:
  JsonValue() = default;

  bool present() const { return tree_ != nullptr; }
  bool is_null() const;
  bool is_boolean() const;
  bool is_string() const;
  bool is_number() const;
  bool is_number_unsigned() const;  // digits without a sign
  bool is_number_integer() const;   // with or without a sign
  bool is_array() const;
  bool is_object() const;

  bool boolean() const;  // true for `true`
  std::string_view string() const;
  uint64_t number_unsigned() const;  // 0 unless is_number_unsigned()
  double number_double() const;      // any number as a double, else 0

  // An array's elements or an object's members (sorted, unique names); 0 for a scalar.
  size_t size() const;
  JsonValue at(size_t i) const;           // the i-th element or member value
  std::string_view name(size_t i) const;  // the i-th member's name
  JsonValue find(std::string_view member) const;
  bool contains(std::string_view member) const { return find(member).present(); }

  // Appends the value as nlohmann's dump() prints it (compact, ensure_ascii off).
  void AppendCompact(std::string& out) const;
  std::string Compact() const;

 private:
  friend class JsonTree;
  JsonValue(const JsonTree* tree, uint32_t index) : tree_(tree), index_(index) {}

  const JsonTree* tree_ = nullptr;
  uint32_t index_ = 0;
};

class JsonTree {
 public:
  static constexpr size_t kMaxDepth = 4096;
  // The largest input a tree keeps its buffers for from one document to the next (a thread's
  // tree lives as long as the thread; simdjson holds ~14 bytes per input byte, so ~1 MB here):
  // after a larger document, the next one within this size starts afresh. A payload is ~0.5 KB,
  // a group's with its members more.
  static constexpr size_t kKeptBytes = size_t{64} << 10;

  JsonTree();
  ~JsonTree();
  JsonTree(const JsonTree&) = delete;
  JsonTree& operator=(const JsonTree&) = delete;

  // Parses `text`; false (and an absent root) where nlohmann-json's parser would refuse it.
  bool Parse(std::string_view text);
  JsonValue root() const { return root_; }

  // The input size the tree's buffers are sized for now (simdjson's capacity).
  size_t capacity() const;

 private:
  friend class JsonValue;
  enum class Type : uint8_t {
    kNull,
    kFalse,
    kTrue,
    kString,
    kUnsigned,
    kSigned,
    kDouble,
    kArray,
    kObject
  };
  struct Node {
    Type type = Type::kNull;
    uint32_t first = 0;  // an array's or object's first entry in members_
    uint32_t count = 0;
    std::string_view text;  // a string's (in the parser's buffer)
    union {
      uint64_t u;
      int64_t i;
      double d;
    } number{0};
  };
  struct Member {
    std::string_view name;  // empty for an array element
    uint32_t node = 0;
  };

  uint32_t Build(const simdjson::dom::element& element);
  void Reset(size_t next_size);

  // Behind a pointer: simdjson's classes change with its build options (threads), which only
  // this library's own sources are compiled with.
  std::unique_ptr<simdjson::dom::parser> parser_;
  std::string rewritten_;  // the text with its too-long integers made doubles, when it has some
  std::vector<Node> nodes_;
  std::vector<Member> members_;
  std::vector<Member> scratch_;
  std::vector<uint32_t> negative_zeros_;  // the ordinals of the "-0" number tokens
  uint32_t numbers_seen_ = 0;
  JsonValue root_;
};

}  // namespace quell::jsonl
