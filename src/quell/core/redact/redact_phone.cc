// Phone numbers. A leading '+' is a strong signal, so international numbers are taken in any
// grouping of 7 to 15 digits (E.164). Without it, digit groups are everywhere in error text
// (dates, versions, IPs, ranges, lists), so only shapes that national plans actually use count:
//   North American 415-555-0100, 415.555.0100, 1-800-555-0100, (415) 555-0100;
//   trunk-prefixed 020 7946 0958, 030 1234567, 06-12345678, 01 23 45 67 89 (9-13 digits),
//     or dialled abroad with 00 instead of '+', 0049 30 12345678 (up to 17 digits);
//   an area code in parentheses, (11) 91234-5678.
// Numbers without any separator are left alone: nationally they are indistinguishable from ids.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/redact/redact_passes.h"
#include "quell/core/redact/redact_scan.h"

namespace quell::core::redact_internal {
namespace {

struct Group {
  size_t begin = 0;  // including a leading '+' or '('
  size_t end = 0;    // including a closing ')'
  size_t digits = 0;
  char sep = '\0';  // the separator before this group; '\0' for the first and after ')'
  bool paren = false;
  char lead = '0';           // the first digit
  bool double_zero = false;  // starts with 00, the international call prefix
};

constexpr size_t kMaxDigits = 17;  // 00, then the 15 of E.164

bool IsSeparator(char c) { return c == ' ' || c == '-' || c == '.'; }

struct Sequence {
  std::vector<Group> groups;
  size_t end = 0;
  bool plus = false;
  bool attached = false;  // the last group runs into a word or a clock reading ("0100a", "09:30")
};

// Reads digit groups from `i` (a '+', a '(' or a digit) joined by single separators.
void ReadSequence(std::string_view s, size_t i, Sequence& seq) {
  seq.groups.clear();
  seq.plus = s[i] == '+';
  seq.attached = false;
  seq.end = i;
  size_t p = seq.plus ? i + 1 : i;
  char sep = '\0';
  while (true) {
    Group g;
    g.begin = p;
    g.sep = sep;
    if (At(s, p) == '(') {
      const size_t close = RunEnd(s, p + 1, IsDigit);
      if (close - p - 1 < 1 || close - p - 1 > 5 || At(s, close) != ')') return;
      g.end = close + 1;
      g.digits = close - p - 1;
      g.paren = true;
      g.lead = s[p + 1];
    } else {
      g.end = RunEnd(s, p, IsDigit);
      g.digits = g.end - p;
      g.lead = s[p];
      g.double_zero = g.digits >= 3 && s[p] == '0' && s[p + 1] == '0';
    }
    if (seq.groups.empty()) g.begin = i;
    seq.groups.push_back(g);
    seq.end = g.end;
    const char next = At(s, g.end);
    const char after = At(s, g.end + 1);
    if (IsSeparator(next) && (IsDigit(after) || (after == '(' && IsDigit(At(s, g.end + 2))))) {
      sep = next;
      p = g.end + 1;
    } else if (g.paren && IsDigit(next)) {
      sep = '\0';
      p = g.end;
    } else {
      seq.attached = IsAlnum(next) || next == '_' ||
                     ((next == ':' || next == '/' || next == ',') && IsDigit(after));
      return;
    }
  }
}

bool IsInternational(const std::vector<Group>& gs, size_t last, size_t digits) {
  if (digits < 7 || digits > 15) return false;
  if (last == 0) return digits >= 8;   // +14155550100
  if (gs[0].digits > 3) return false;  // the country code
  for (size_t g = 1; g <= last; ++g) {
    if (gs[g].paren && (g != 1 || gs[g].digits > 4)) return false;  // +44 (0)20 ...
  }
  return true;
}

bool SizesAre(const std::vector<Group>& gs, size_t first, size_t last,
              std::initializer_list<size_t> sizes) {
  if (last - first + 1 != sizes.size()) return false;
  size_t g = first;
  for (size_t size : sizes) {
    if (gs[g++].digits != size) return false;
  }
  return true;
}

bool IsNational(const std::vector<Group>& gs, size_t first, size_t last, size_t digits) {
  if (last == first || (first > 0 && gs[first].sep == '\0')) return false;
  const bool paren = gs[first].paren;
  // One separator throughout; after "(415)" the next one may differ or be missing.
  const size_t uniform_from = paren ? first + 2 : first + 1;
  const char sep = uniform_from <= last ? gs[uniform_from].sep : gs[first + 1].sep;
  for (size_t g = first + 1; g <= last; ++g) {
    if (gs[g].paren || (g >= uniform_from && gs[g].sep != sep)) return false;
  }
  // A neighbour joined by the same separator means the window is part of something longer.
  if (first > 0 && gs[first].sep == sep) return false;
  if (last + 1 < gs.size() && gs[last + 1].sep == sep) return false;
  const char lead = gs[first].lead;
  const bool nanp = lead >= '2' && SizesAre(gs, first, last, {3, 3, 4});
  if (paren) {
    return gs[first].digits >= 2 && gs[first].digits <= 4 && sep != '.' && digits >= 10 &&
           digits <= 12 && gs[last].digits >= 4;
  }
  if (sep == '.') return nanp || (lead == '0' && SizesAre(gs, first, last, {2, 2, 2, 2, 2}));
  if (nanp || (lead == '1' && SizesAre(gs, first, last, {1, 3, 3, 4}))) return true;
  if (lead != '0' || digits < 9 || digits > (gs[first].double_zero ? 17U : 13U)) return false;
  bool all_pairs = true;
  for (size_t g = first; g <= last; ++g) {
    if (gs[g].digits < 2 || gs[g].digits > 8) return false;
    all_pairs = all_pairs && gs[g].digits == 2;
  }
  return gs[last].digits >= 3 || all_pairs;
}

bool IsPhone(const Sequence& seq, size_t first, size_t last, size_t digits) {
  if (first == 0 && seq.plus) return IsInternational(seq.groups, last, digits);
  return IsNational(seq.groups, first, last, digits);
}

}  // namespace

std::string RedactPhones(std::string_view text, RedactStats& stats) {
  Sequence seq;
  return Rewrite(text, [&](std::string_view s, size_t i, std::string& out) -> size_t {
    const bool opener = (s[i] == '+' || s[i] == '(') && IsDigit(At(s, i + 1));
    if ((!opener && !IsDigit(s[i])) || !NumberMayStartAt(s, i)) return 0;
    ReadSequence(s, i, seq);
    if (seq.groups.empty()) return 0;
    const size_t usable = seq.groups.size() - (seq.attached ? 1U : 0U);
    size_t copied = i;
    for (size_t first = 0; first < usable; ++first) {
      // The longest number from here; at most 17 groups fit in 17 digits, so this stays linear.
      size_t best = usable;
      size_t digits = 0;
      for (size_t last = first; last < usable; ++last) {
        digits += seq.groups[last].digits;
        if (digits > kMaxDigits) break;
        if (IsPhone(seq, first, last, digits)) best = last;
      }
      if (best == usable) continue;
      out.append(s.substr(copied, seq.groups[first].begin - copied));
      out.append("[phone]");
      ++stats.phones;
      copied = seq.groups[best].end;
      first = best;
    }
    out.append(s.substr(copied, seq.end - copied));
    return seq.end - i;
  });
}

}  // namespace quell::core::redact_internal
