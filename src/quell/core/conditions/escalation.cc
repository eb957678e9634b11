#include "quell/core/conditions/escalation.h"

#include <set>

namespace quell::core {

std::vector<TierTarget> FlatTargets(const std::vector<std::string>& channels) {
  std::vector<TierTarget> out;
  out.reserve(channels.size());
  for (const std::string& channel : channels) out.push_back(TierTarget{channel, 0, {}});
  return out;
}

std::vector<TierTarget> TierTargets(const std::vector<EscalationTier>& tiers) {
  std::vector<TierTarget> out;
  for (size_t i = 0; i < tiers.size(); ++i) {
    const EscalationTier& tier = tiers[i];
    // A tier due at once behaves as a flat channel: nothing can cancel it before it is sent.
    const uint32_t number = tier.after > Duration::zero() ? static_cast<uint32_t>(i + 1) : 0;
    for (const std::string& channel : tier.channels) {
      out.push_back(TierTarget{channel, number, tier.after});
    }
  }
  return out;
}

bool TierDue(const TierTarget& target, std::optional<WallTime> opened_at, WallTime now) {
  if (target.tier == 0) return true;
  return opened_at && *opened_at + target.after <= now;
}

Status ValidateEscalation(const std::vector<EscalationTier>& tiers) {
  if (tiers.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "needs at least one tier, e.g. [{after: 0s, channels: [chat]}]");
  }
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < tiers.size(); ++i) {
    const std::string where = "tier " + std::to_string(i + 1) + ": ";
    const EscalationTier& tier = tiers[i];
    if (tier.channels.empty()) {
      return MakeError(ErrorCode::kInvalidArgument, where + "needs channels, e.g. [pager]");
    }
    if (tier.after < Duration::zero()) {
      return MakeError(ErrorCode::kInvalidArgument, where + "after must not be negative");
    }
    if (i > 0 && tier.after <= tiers[i - 1].after) {
      return MakeError(ErrorCode::kInvalidArgument,
                       where + "after must be later than the tier before it (" +
                           FormatDuration(tiers[i - 1].after) + ")");
    }
    for (const std::string& channel : tier.channels) {
      if (!seen.insert(channel).second) {
        std::string message = where;
        message += "channel \"" + channel + "\" is in an earlier tier already";
        return MakeError(ErrorCode::kInvalidArgument, message);
      }
    }
  }
  return {};
}

}  // namespace quell::core
