#include "quell/adapters/prometheus/query_check.h"

#include <string_view>
#include <utility>

namespace quell::prometheus {
namespace {

// Strips the "prometheus: " every source message starts with; the finding says it already.
std::string Bare(std::string message) {
  constexpr std::string_view kPrefix = "prometheus: ";
  if (message.starts_with(kPrefix)) message.erase(0, kPrefix.size());
  return message;
}

}  // namespace

QueryCheck CheckQuery(core::MetricSource& source, const core::MetricQuery& query) {
  QueryCheck check;
  core::Result<core::MetricAnswer> answer = source.Query(query);
  if (answer) {
    check.verdict = QueryVerdict::kAnswered;
    check.answer = std::move(*answer);
    return check;
  }
  // kRejected is Prometheus refusing the expression (400 bad_data names the syntax error, 422
  // execution a query that cannot run); every other code says nothing about the query itself.
  check.verdict = answer.error().code == core::ErrorCode::kRejected ? QueryVerdict::kInvalid
                                                                    : QueryVerdict::kFailed;
  check.message = Bare(answer.error().message);
  return check;
}

std::vector<ConditionFinding> CheckCondition(core::MetricSource& source,
                                             const core::MetricCondition& condition) {
  const std::string& name = condition.common.name;
  const std::string where = "condition \"" + name + "\" query \"" + condition.query.expr + "\"";
  std::vector<ConditionFinding> out;
  const QueryCheck check = CheckQuery(source, condition.query);
  switch (check.verdict) {
    case QueryVerdict::kInvalid:
      out.push_back({"invalid", where + ": Prometheus refused it: " + check.message});
      return out;
    case QueryVerdict::kFailed:
      out.push_back({"unreachable", where + ": no answer to judge it by: " + check.message});
      return out;
    case QueryVerdict::kAnswered:
      break;
  }
  const size_t kept = core::CountSelectedSeries(condition, check.answer);
  if (kept == 0) {
    out.push_back({"no series",
                   where + ": answered " + std::to_string(check.answer.series.size()) +
                       " series, none kept by the condition; it observes nothing (a typo'd "
                       "metric or label looks just like this)",
                   true});
    return out;
  }
  for (const core::MissingKeyLabel& missing : core::FindMissingKeyLabels(condition, check.answer)) {
    std::string text = where + ": key \"" + condition.key.text() + "\" reads label \"" +
                       missing.label + "\", which " + std::to_string(missing.lacking) + " of " +
                       std::to_string(missing.series) +
                       " series in the answer lack; their key renders it as \"-\"";
    if (condition.group_by) text += " (the key can only read labels listed in group_by)";
    out.push_back({"missing label", std::move(text)});
  }
  return out;
}

}  // namespace quell::prometheus
