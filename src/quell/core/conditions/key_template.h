#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/engine/labels.h"
#include "quell/core/result.h"

namespace quell::core {

// A dedupe-key template such as "{tags.tenant}:{tags.agent_stage}:{error_group_id}": literal
// text with {field} or {field|fallback} placeholders. The key is what an operator acts on, so
// rendering is deterministic and never fails: a field the source did not send renders as its
// fallback ("-" unless given), and braces or control characters inside values are replaced, so
// no value can forge a separator-shaped key out of another group's fields. Values are redacted
// as every label is (core::AppendRedactedLabelValue): a value holding personal data (a tenant
// tag that is an e-mail address) becomes "pii-" and 12 hex digits of its SHA-256, so the key
// stays stable and distinct per value; a field named like a credential ({labels.password})
// renders "[secret]", and a secret inside a value "[secret]" in its place; so a key never
// carries them into subjects, logs, rows and URLs. The group id field is never replaced.
class KeyTemplate {
 public:
  // Looks a placeholder's field up; nullopt (or empty) when the source did not send it.
  using Lookup = std::function<std::optional<std::string_view>(std::string_view field)>;

  // kInvalidArgument naming the column (1-based) of an unbalanced brace or empty placeholder,
  // or when the template has no placeholder at all (every group would share one key).
  static Result<KeyTemplate> Parse(std::string_view text);

  std::string Render(const Lookup& lookup) const;
  // Appends the rendered key to `out`; the hot-path form for a listing of 100k groups.
  void AppendTo(std::string& out, const Lookup& lookup) const;

  // Bounds every rendered key (config limits.key_bytes): a longer key keeps its head, cut on a
  // UTF-8 boundary, and ends in "~h" and 12 hex digits of the whole key's SHA-256, so a source
  // sending a 10 MB tag cannot make a 10 MB key, and two long keys stay apart.
  void set_max_bytes(size_t max_bytes) { max_bytes_ = max_bytes; }

  // What the key was built from, as an incident's labels: one per placeholder whose field the
  // source sent, named as the template names it ("tags.tenant" gives "tenant"), its value as the
  // key shows it (redacted and sanitized as above, cut to the key's bound), sorted by
  // name; the first of two placeholders with one name wins.
  Labels LabelsOf(const Lookup& lookup) const;

  // Where AppendTo put each sent field's value in its output: the placeholder (an index into
  // the template's parts) and the value's offsets; `whole` is false when the key was cut to its
  // bound, which leaves values out.
  struct Rendered {
    struct Value {
      size_t part = 0;
      size_t begin = 0;
      size_t end = 0;
    };
    std::vector<Value> values;
    bool whole = true;
  };
  // AppendTo, noting where each value went.
  void AppendTo(std::string& out, const Lookup& lookup, Rendered& rendered) const;
  // LabelsOf from the key AppendTo rendered into `out`, its values not rendered again (the
  // redaction behind them is most of a key's cost); `lookup` is asked only for a key cut to
  // its bound.
  Labels LabelsOf(std::string_view out, const Rendered& rendered, const Lookup& lookup) const;

  // The field of the first placeholder written without a fallback ("{labels.tenant}", not
  // "{labels.tenant|none}") that `lookup` lacks or finds empty; nullopt when there is none. A
  // push input refuses such an alert rather than file it under a key that reads "-".
  std::optional<std::string> MissingField(const Lookup& lookup) const;

  // The fields the placeholders name, in order, e.g. {"tags.tenant", "error_group_id"}.
  std::vector<std::string> Fields() const;
  const std::string& text() const { return text_; }

 private:
  void AppendNoting(std::string& out, const Lookup& lookup, Rendered* rendered) const;

  struct Part {
    bool is_field = false;
    std::string text;           // the literal, or the field name
    std::string fallback;       // for a field
    bool has_fallback = false;  // written "{field|fallback}"
  };

  std::string text_;
  std::vector<Part> parts_;
  size_t max_bytes_ = 512;
};

}  // namespace quell::core
