#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quell::templates {

// What a name in a template stands for, as mstch sees a context node: absent (the scope has no
// such name, so the lookup goes on outward), null, a string, a bool or a list of item scopes.
struct TemplateValue {
  enum class Kind : uint8_t { kAbsent, kNull, kString, kBool, kList };
  Kind kind = Kind::kAbsent;
  std::string_view text;  // kString
  bool escape = false;    // kString: written through TemplateData::AppendEscaped
  bool flag = false;      // kBool
  size_t items = 0;       // kList

  // mstch's is_node_empty: what a section skips and an inverted section shows.
  bool Empty() const;
};

// The data a compiled template renders: names are numbered once, at compile time, by their
// place in the table the template was compiled with.
class TemplateData {
 public:
  virtual ~TemplateData() = default;
  // The outermost scope's value for name `id`.
  virtual TemplateValue Root(size_t id) const = 0;
  // Item `index` of the list `list` (a name's id) as a scope: kAbsent for names it lacks.
  virtual TemplateValue Item(size_t list, size_t index, size_t id) const = 0;
  // A kString value with `escape` set, as the channel's markup needs it.
  virtual void AppendEscaped(std::string& out, std::string_view text) const = 0;
};

// A mustache template parsed once and rendered many times, writing what mstch::render writes
// for the same text and context byte for byte: its tokens, its standalone-line rule (a line
// holding only section or comment tags and blanks is dropped whole) and its scope lookup (the
// innermost scope holding the name; "." the innermost string, bool or null). Compile accepts
// only what that takes: variables, sections, inverted sections and comments, with names from
// the table (any other name renders as nothing). Thread-safe to render.
class MustacheTemplate {
 public:
  // nullopt: the text needs more of mstch (partials, delimiter changes, dotted names, sections
  // that do not nest), so the caller renders it with mstch itself.
  static std::optional<MustacheTemplate> Compile(std::string_view text,
                                                 const std::vector<std::string_view>& names);

  // Appends the rendering of `data` to `out`.
  void RenderTo(const TemplateData& data, std::string& out) const;

  struct Part {
    enum class Kind : uint8_t { kText, kVariable, kSection, kInverted };
    Kind kind = Kind::kText;
    std::string text;  // kText
    size_t name = 0;   // the others: an id, kDot or kUnknown
    size_t end = 0;    // sections: the index one past the section's last part
  };
  static constexpr size_t kDot = static_cast<size_t>(-1);
  static constexpr size_t kUnknown = static_cast<size_t>(-2);

 private:
  explicit MustacheTemplate(std::vector<Part> parts) : parts_(std::move(parts)) {}
  std::vector<Part> parts_;  // sections hold the parts up to `end` after them
};

}  // namespace quell::templates
