#include "quell/adapters/text_output/operator_replies.h"

#include <vector>

#include "quell/adapters/text_output/text_table.h"

namespace quell::text_output {
namespace {

std::string Describe(const std::vector<core::OutboxRow>& rows) {
  if (rows.empty()) return "no channel routed, no outbox row";
  std::string out;
  for (const core::OutboxRow& row : rows) {
    if (!out.empty()) out.append(", ");
    out.append(row.channel).append(" ").append(core::OutboxStatusName(row.status));
  }
  return out;
}

}  // namespace

void PrintAcked(std::FILE* out, const core::Incident& incident) {
  std::fprintf(out, "acked %s (generation %llu) by %s at %s\n", incident.key.c_str(),
               static_cast<unsigned long long>(incident.generation), incident.acked_by.c_str(),
               TimeText(incident.acked_at).c_str());
}

void PrintResolved(std::FILE* out, const app::ResolveResult& resolved) {
  std::fprintf(out, "resolved %s (generation %llu, version %llu): %s\n",
               resolved.incident.key.c_str(),
               static_cast<unsigned long long>(resolved.incident.generation),
               static_cast<unsigned long long>(resolved.incident.version),
               Describe(resolved.outbox).c_str());
  std::string groups;
  for (const std::string& g : resolved.upstream_groups) groups += (groups.empty() ? "" : ", ") + g;
  if (!groups.empty()) std::fprintf(out, "resolved upstream: %s\n", groups.c_str());
  std::fprintf(out, "held resolved until its source is seen healthy%s\n",
               resolved.incident.held_until
                   ? (" or " + core::FormatRfc3339(*resolved.incident.held_until)).c_str()
                   : "");
}

void PrintSilenceAdded(std::FILE* out, const core::Silence& silence) {
  std::fprintf(out, "silence %llu: %s %s until %s\n", static_cast<unsigned long long>(silence.id),
               silence.match == core::SilenceMatch::kExact ? "key" : "keys matching",
               silence.pattern.c_str(), core::FormatRfc3339(silence.expires_at).c_str());
}

void PrintRetriedAll(std::FILE* out, const core::OperatorStore::RetriedRows& retried,
                     std::optional<std::string_view> channel) {
  const uint64_t total = retried.pending + retried.superseded;
  const std::string on = channel ? " on " + std::string(*channel) : "";
  std::fprintf(out, "retried %llu dead rows%s: %llu pending, due now; %llu superseded\n",
               static_cast<unsigned long long>(total), on.c_str(),
               static_cast<unsigned long long>(retried.pending),
               static_cast<unsigned long long>(retried.superseded));
}

void PrintRetried(std::FILE* out, const std::string& idempotency_key, core::OutboxStatus status) {
  std::fprintf(out, "outbox row %s is %s%s\n", idempotency_key.c_str(),
               core::OutboxStatusName(status),
               status == core::OutboxStatus::kPending
                   ? ", due now"
                   : " (a newer message of its incident was sent already)");
}

}  // namespace quell::text_output
