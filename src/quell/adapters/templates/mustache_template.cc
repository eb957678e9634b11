#include "quell/adapters/templates/mustache_template.h"

#include <array>
#include <utility>

namespace quell::templates {
namespace {

// mstch's tokens (its token.cpp and template_type.cpp, which this follows step by step so that
// the same text splits the same way).
struct Token {
  enum class Type : uint8_t {
    kText,
    kVariable,
    kSectionOpen,
    kSectionClose,
    kInvertedOpen,
    kUnescaped,
    kComment,
    kPartial,
    kDelimiterChange
  };
  Type type = Type::kText;
  std::string_view raw;  // kText
  std::string_view name;
  bool eol = false;
  bool ws_only = false;
};

// Only the blank counts as white space inside a tag, as in mstch.
size_t FirstNotBlank(std::string_view s, size_t from, size_t to) {
  while (from < to && s[from] == ' ') ++from;
  return from;
}

Token TextToken(std::string_view raw) {
  Token t;
  t.raw = raw;
  t.eol = !raw.empty() && raw.back() == '\n';
  t.ws_only = raw.find_first_not_of(" \r\n\t") == std::string_view::npos;
  return t;
}

// A tag as mstch reads "{{...}}" (its delimiters two characters each).
Token TagToken(std::string_view tag) {
  constexpr size_t kSide = 2;
  Token t;
  const size_t inner_end = tag.size() - kSide;
  if (tag[kSide] == '=' && tag[inner_end - 1] == '=') {
    t.type = Token::Type::kDelimiterChange;
    return t;
  }
  if (tag[kSide] == '{' && tag[inner_end - 1] == '}') {
    t.type = Token::Type::kUnescaped;
    const size_t from = FirstNotBlank(tag, kSide + 1, inner_end);
    size_t to = inner_end - 1;
    while (to > kSide + 1 && tag[to - 1] == ' ') --to;
    t.name = from < to ? tag.substr(from, to - from) : std::string_view();
    return t;
  }
  size_t c = FirstNotBlank(tag, kSide, inner_end);
  switch (c < inner_end ? tag[c] : '}') {
    case '>':
      t.type = Token::Type::kPartial;
      break;
    case '^':
      t.type = Token::Type::kInvertedOpen;
      break;
    case '/':
      t.type = Token::Type::kSectionClose;
      break;
    case '&':
      t.type = Token::Type::kUnescaped;
      break;
    case '#':
      t.type = Token::Type::kSectionOpen;
      break;
    case '!':
      t.type = Token::Type::kComment;
      break;
    default:
      t.type = Token::Type::kVariable;
      break;
  }
  if (t.type != Token::Type::kVariable) c = FirstNotBlank(tag, c + 1, inner_end);
  size_t to = inner_end;
  while (to > kSide && tag[to - 1] == ' ') --to;
  t.name = c < to ? tag.substr(c, to - c) : std::string_view();
  return t;
}

// Text between tags, one token per line (each ends at its '\n', the last at the text's end).
void AddText(std::string_view text, std::vector<Token>& tokens) {
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || i + 1 == text.size()) {
      tokens.push_back(TextToken(text.substr(start, i + 1 - start)));
      start = i + 1;
    }
  }
}

// mstch's tokenize with "{{" and "}}" (a delimiter change stops the compile before it matters).
std::vector<Token> Tokenize(std::string_view text) {
  std::vector<Token> tokens;
  constexpr std::string_view kOpen = "{{";
  constexpr std::string_view kClose = "}}";
  size_t at = 0;
  while (at < text.size()) {
    const size_t open = text.find(kOpen, at);
    size_t close =
        open == std::string_view::npos ? std::string_view::npos : text.find(kClose, open + 1);
    if (open == std::string_view::npos || close == std::string_view::npos) {
      AddText(text.substr(at), tokens);
      break;
    }
    const size_t after = close + kClose.size();
    if (text[open + kOpen.size()] == '{' && after < text.size() && text[after] == '}') ++close;
    AddText(text.substr(at, open - at), tokens);
    at = close + kClose.size();
    tokens.push_back(TagToken(text.substr(open, at - open)));
    if (at == text.size()) {
      Token end = TextToken("");
      end.eol = true;
      tokens.push_back(end);
    }
  }
  return tokens;
}

bool IsTag(const Token& t) {
  return t.type != Token::Type::kText && t.type != Token::Type::kVariable &&
         t.type != Token::Type::kUnescaped;
}

// mstch's strip_whitespace: a line whose tokens are section or comment tags and blank text only
// loses its blank text, its line end included.
void DropStandaloneLines(std::vector<Token>& tokens) {
  std::vector<Token> kept;
  kept.reserve(tokens.size());
  size_t line_begin = 0;
  bool has_tag = false;
  bool non_space = false;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (IsTag(t)) {
      has_tag = true;
    } else if (t.type != Token::Type::kText || !t.ws_only) {
      non_space = true;
    }
    if (!t.eol) continue;
    const bool standalone = has_tag && !non_space;
    for (size_t j = line_begin; j <= i; ++j) {
      const bool blank = tokens[j].type == Token::Type::kText && tokens[j].ws_only;
      if (!standalone || !blank) kept.push_back(tokens[j]);
    }
    has_tag = non_space = false;
    line_begin = i + 1;
  }
  for (size_t j = line_begin; j < tokens.size(); ++j) kept.push_back(tokens[j]);
  tokens = std::move(kept);
}

// Deep enough for any template quell ships; a deeper one is left to mstch.
constexpr size_t kMaxDepth = 16;

struct Frame {
  enum class Kind : uint8_t { kRoot, kItem, kScalar };
  Kind kind = Kind::kRoot;
  size_t list = 0;
  size_t index = 0;
  TemplateValue value;  // kScalar
};

TemplateValue Null() {
  TemplateValue v;
  v.kind = TemplateValue::Kind::kNull;
  return v;
}

Frame ScalarFrame(const TemplateValue& value) {
  Frame frame;
  frame.kind = Frame::Kind::kScalar;
  frame.value = value;
  return frame;
}

Frame ItemFrame(size_t list, size_t index) {
  Frame frame;
  frame.kind = Frame::Kind::kItem;
  frame.list = list;
  frame.index = index;
  return frame;
}

struct Renderer {
  const TemplateData& data;
  const std::vector<MustacheTemplate::Part>& parts;
  std::string& out;
  std::array<Frame, kMaxDepth + 1> frames{};
  size_t depth = 1;  // frames[0] is the root

  TemplateValue Lookup(size_t name) const {
    for (size_t f = depth; f-- > 0;) {
      const Frame& frame = frames[f];
      if (frame.kind == Frame::Kind::kScalar) {
        if (name == MustacheTemplate::kDot) return frame.value;
        continue;
      }
      if (name == MustacheTemplate::kDot || name == MustacheTemplate::kUnknown) continue;
      const TemplateValue v = frame.kind == Frame::Kind::kRoot
                                  ? data.Root(name)
                                  : data.Item(frame.list, frame.index, name);
      if (v.kind != TemplateValue::Kind::kAbsent) return v;
    }
    return Null();
  }

  void Write(const TemplateValue& v) const {
    if (v.kind == TemplateValue::Kind::kString) {
      if (v.escape) {
        data.AppendEscaped(out, v.text);
      } else {
        out.append(v.text);
      }
    } else if (v.kind == TemplateValue::Kind::kBool) {
      out.append(v.flag ? "true" : "false");
    }
  }

  void Render(size_t begin, size_t end) {
    for (size_t i = begin; i < end;) {
      const MustacheTemplate::Part& part = parts[i];
      switch (part.kind) {
        case MustacheTemplate::Part::Kind::kText:
          out.append(part.text);
          ++i;
          continue;
        case MustacheTemplate::Part::Kind::kVariable:
          Write(Lookup(part.name));
          ++i;
          continue;
        case MustacheTemplate::Part::Kind::kSection:
          Section(part.name, i + 1, part.end);
          break;
        case MustacheTemplate::Part::Kind::kInverted:
          if (Lookup(part.name).Empty()) {
            Push(ScalarFrame(Null()));
            Render(i + 1, part.end);
            --depth;
          }
          break;
      }
      i = part.end;
    }
  }

  void Section(size_t name, size_t begin, size_t end) {
    const TemplateValue v = Lookup(name);
    if (v.Empty()) return;
    if (v.kind == TemplateValue::Kind::kList) {
      for (size_t item = 0; item < v.items; ++item) {
        Push(ItemFrame(name, item));
        Render(begin, end);
        --depth;
      }
      return;
    }
    Push(ScalarFrame(v));
    Render(begin, end);
    --depth;
  }

  void Push(const Frame& frame) { frames[depth++] = frame; }
};

}  // namespace

bool TemplateValue::Empty() const {
  switch (kind) {
    case Kind::kAbsent:
    case Kind::kNull:
      return true;
    case Kind::kString:
      return text.empty();
    case Kind::kBool:
      return !flag;
    case Kind::kList:
      return items == 0;
  }
  return true;
}

std::optional<MustacheTemplate> MustacheTemplate::Compile(
    std::string_view text, const std::vector<std::string_view>& names) {
  std::vector<Token> tokens = Tokenize(text);
  DropStandaloneLines(tokens);
  std::vector<Part> parts;
  std::vector<std::pair<std::string_view, size_t>> open;  // name, its part's index
  bool after_text = false;  // the last part is text at this level: more text joins it
  const auto id_of = [&names](std::string_view name) {
    if (name == ".") return kDot;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return i;
    }
    return kUnknown;
  };
  for (const Token& t : tokens) {
    switch (t.type) {
      case Token::Type::kText:
        if (t.raw.empty()) break;
        if (after_text) {
          parts.back().text.append(t.raw);
        } else {
          Part part;
          part.text = std::string(t.raw);
          parts.push_back(std::move(part));
        }
        after_text = true;
        break;
      case Token::Type::kComment:
        break;
      case Token::Type::kPartial:
      case Token::Type::kDelimiterChange:
        return std::nullopt;
      case Token::Type::kVariable:
      case Token::Type::kUnescaped:
      case Token::Type::kSectionOpen:
      case Token::Type::kInvertedOpen:
      case Token::Type::kSectionClose: {
        after_text = false;
        // mstch looks a dotted name up part by part; quell's names have no dots.
        if (t.name.empty() || (t.name != "." && t.name.find('.') != std::string_view::npos)) {
          return std::nullopt;
        }
        if (t.type == Token::Type::kSectionClose) {
          if (open.empty() || open.back().first != t.name) return std::nullopt;
          parts[open.back().second].end = parts.size();
          open.pop_back();
          break;
        }
        const bool section = t.type == Token::Type::kSectionOpen;
        if (section || t.type == Token::Type::kInvertedOpen) {
          if (open.size() >= kMaxDepth) return std::nullopt;
          open.emplace_back(t.name, parts.size());
          Part part;
          part.kind = section ? Part::Kind::kSection : Part::Kind::kInverted;
          part.name = id_of(t.name);
          parts.push_back(std::move(part));
        } else {
          Part part;
          part.kind = Part::Kind::kVariable;
          part.name = id_of(t.name);
          parts.push_back(std::move(part));
        }
        break;
      }
    }
  }
  if (!open.empty()) return std::nullopt;
  return MustacheTemplate(std::move(parts));
}

void MustacheTemplate::RenderTo(const TemplateData& data, std::string& out) const {
  Renderer renderer{data, parts_, out};
  renderer.Render(0, parts_.size());
}

}  // namespace quell::templates
