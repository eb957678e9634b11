// Payment card numbers: 13 to 19 digits, whole or in groups of 3 to 6 joined by one consistent
// space or dash, starting with 2-6 (Mastercard, Visa, Amex, Discover, JCB, Diners, UnionPay),
// and passing the Luhn check. The leading digit keeps 13-digit epoch milliseconds (1...), and
// the Luhn check keeps nine in ten other long numbers, such as order and trace ids.
#include <string>
#include <string_view>
#include <vector>

#include "quell/core/redact/redact_passes.h"
#include "quell/core/redact/redact_scan.h"

namespace quell::core::redact_internal {
namespace {

struct Group {
  size_t begin = 0;
  size_t end = 0;
  char sep = '\0';  // the separator before this group; '\0' for the first
};

bool PassesLuhn(std::string_view s, const std::vector<Group>& groups, size_t first, size_t last) {
  unsigned sum = 0;
  bool doubled = false;
  for (size_t g = last + 1; g-- > first;) {
    for (size_t k = groups[g].end; k-- > groups[g].begin;) {
      unsigned d = static_cast<unsigned>(s[k] - '0');
      if (doubled) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
      doubled = !doubled;
    }
  }
  return sum % 10 == 0;
}

bool IsCard(std::string_view s, const std::vector<Group>& groups, size_t first, size_t last) {
  size_t digits = 0;
  for (size_t g = first; g <= last; ++g) {
    const size_t size = groups[g].end - groups[g].begin;
    if (last > first && (size < 3 || size > 6)) return false;
    if (g > first && groups[g].sep != groups[first + 1].sep) return false;
    digits += size;
  }
  const char lead = s[groups[first].begin];
  return digits >= 13 && digits <= 19 && lead >= '2' && lead <= '6' &&
         PassesLuhn(s, groups, first, last);
}

// Digit groups from `i` joined by single spaces or dashes. `attached` is set when the last
// group runs into a word or a decimal ("...1111abc", "...1111.5"), so it cannot end a card.
size_t ReadGroups(std::string_view s, size_t i, std::vector<Group>& groups, bool& attached) {
  groups.clear();
  char sep = '\0';
  size_t p = i;
  while (true) {
    const size_t end = RunEnd(s, p, IsDigit);
    groups.push_back({p, end, sep});
    const char next = At(s, end);
    if ((next == ' ' || next == '-') && IsDigit(At(s, end + 1))) {
      sep = next;
      p = end + 1;
      continue;
    }
    attached =
        IsAlnum(next) || next == '_' || ((next == '.' || next == ',') && IsDigit(At(s, end + 1)));
    return end;
  }
}

}  // namespace

std::string RedactCards(std::string_view text, RedactStats& stats) {
  std::vector<Group> groups;
  return Rewrite(text, [&](std::string_view s, size_t i, std::string& out) -> size_t {
    if (!IsDigit(s[i]) || !NumberMayStartAt(s, i)) return 0;
    bool attached = false;
    const size_t end = ReadGroups(s, i, groups, attached);
    const size_t usable = groups.size() - (attached ? 1U : 0U);
    size_t copied = i;
    for (size_t first = 0; first < usable; ++first) {
      // The longest card from here; a window spans at most 19 groups, so this stays linear.
      size_t best = usable;
      size_t digits = 0;
      for (size_t last = first; last < usable; ++last) {
        digits += groups[last].end - groups[last].begin;
        if (digits > 19) break;
        if (IsCard(s, groups, first, last)) best = last;
      }
      if (best == usable) continue;
      out.append(s.substr(copied, groups[first].begin - copied));
      out.append("[card]");
      ++stats.cards;
      copied = groups[best].end;
      first = best;
    }
    out.append(s.substr(copied, end - copied));
    return end - i;
  });
}

}  // namespace quell::core::redact_internal
