#include "quell/adapters/infrai/contract_check.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "quell/adapters/infrai/discovery.h"
#include "quell/adapters/infrai/infrai_error_source.h"
#include "quell/adapters/infrai/infrai_metric_source.h"
#include "quell/core/conditions/error_group_condition.h"

namespace quell::infrai {
namespace {

std::string Join(const std::set<std::string>& names, size_t limit = 8) {
  std::string out;
  size_t n = 0;
  for (const std::string& name : names) {
    if (n++ == limit) return out + ", ...";
    out += (out.empty() ? "" : ", ") + name;
  }
  return out.empty() ? "none" : out;
}

void CheckRoutes(const InfraiClient& client, const ContractNeeds& needs, ContractReport& report,
                 std::vector<std::string>& metrics_query_params) {
  auto manifest = FetchManifest(client);
  if (!manifest) {
    report.problems.push_back({"unreachable", "discovery: " + manifest.error().message});
    return;
  }
  report.checked.push_back("discovery manifest (" + std::to_string(manifest->capabilities.size()) +
                           " capabilities)");
  for (const RouteNeed& need : needs.routes) {
    const Capability* capability = manifest->FindRoute(need.method, need.path);
    if (capability == nullptr) {
      report.problems.push_back({"missing", "condition " + need.condition + " needs " +
                                                need.method + " " + need.path +
                                                ", which no capability in discovery serves"});
    } else if (!capability->available) {
      report.problems.push_back({"unavailable", "condition " + need.condition + " needs " +
                                                    capability->id + " (" + need.method + " " +
                                                    capability->path +
                                                    "), which discovery lists as unavailable"});
    }
  }
  if (const Capability* query = manifest->FindRoute("GET", "/v1/metrics/query")) {
    auto declared = FetchDeclaredParams(client, query->id);
    if (declared) metrics_query_params = std::move(*declared);
  }
}

void CheckMetrics(const InfraiClient& client, const ContractNeeds& needs,
                  const std::vector<std::string>& declared, ContractReport& report) {
  InfraiMetricSource source(client);
  std::map<QueryParams, core::Result<core::MetricAnswer>> answers;
  for (const MetricNeed& need : needs.metrics) {
    for (const auto& param : need.params) {
      if (std::find(declared.begin(), declared.end(), param.first) == declared.end()) {
        report.problems.push_back(
            {"undeclared", "condition " + need.condition + " sends the query parameter \"" +
                               param.first +
                               "\" to metrics.query, which discovery does not declare"});
      }
    }
    auto it = answers.find(need.params);
    if (it == answers.end()) {
      it = answers.emplace(need.params, source.Query(core::MetricQuery{"", need.params})).first;
    }
    const auto& answer = it->second;
    if (!answer) {
      report.problems.push_back(
          {"unreachable", "condition " + need.condition + ": " + answer.error().message});
      continue;
    }
    std::set<std::string> names;
    std::set<std::string> labels;
    for (const core::MetricSeries& series : answer->series) {
      names.insert(series.name);
      if (series.name != need.metric) continue;
      for (const auto& label : series.labels) labels.insert(label.first);
    }
    if (!names.contains(need.metric)) {
      report.problems.push_back({"not seen", "condition " + need.condition + ": metric \"" +
                                                 need.metric +
                                                 "\" is not in the live metrics.query answer "
                                                 "(seen: " +
                                                 Join(names) + ")"});
      continue;
    }
    for (const std::string& label : need.labels) {
      if (labels.contains(label)) continue;
      report.problems.push_back({"not seen", "condition " + need.condition + ": label \"" + label +
                                                 "\" appears on no live series of " + need.metric +
                                                 " (labels seen: " + Join(labels) + ")"});
    }
  }
  if (!needs.metrics.empty()) {
    report.checked.push_back("metrics.query (" + std::to_string(answers.size()) + " queries)");
  }
}

void CheckGroupFields(const InfraiClient& client, const ContractNeeds& needs,
                      ContractReport& report) {
  if (needs.group_fields.empty()) return;
  InfraiOptions first_page = client.options();
  first_page.max_pages = 1;
  for (const auto& need : needs.group_fields) {
    for (const std::string& field : need.fields) {
      if (field.starts_with("tags.") ||
          std::find(first_page.extra_fields.begin(), first_page.extra_fields.end(), field) !=
              first_page.extra_fields.end()) {
        continue;
      }
      first_page.extra_fields.push_back(field);
    }
  }
  const InfraiClient page_client(first_page, client.http());
  InfraiErrorSource source(page_client);
  const core::GroupListing listing = source.List();
  if (listing.pages == 0) {
    // kCorrupt is an answer of the wrong shape (a renamed field among them, see
    // CheckFieldDrift): the contract is broken, not out of reach.
    const bool answered = listing.error.code == core::ErrorCode::kCorrupt;
    report.problems.push_back(
        {answered ? "missing" : "unreachable", "error groups: " + listing.error.message});
    return;
  }
  report.checked.push_back("error groups (first page, " + std::to_string(listing.groups.size()) +
                           " groups)");
  if (listing.groups.empty()) return;  // nothing to judge fields by
  for (const auto& need : needs.group_fields) {
    for (const std::string& field : need.fields) {
      const bool seen = std::any_of(listing.groups.begin(), listing.groups.end(),
                                    [&field](const core::ErrorGroup& group) {
                                      const auto value = core::GroupField(group, field);
                                      return value && !value->empty();
                                    });
      if (!seen) {
        report.problems.push_back({"not seen", "condition " + need.condition + ": key field {" +
                                                   field + "} is empty in all " +
                                                   std::to_string(listing.groups.size()) +
                                                   " groups of the first listing page"});
      }
    }
  }
}

}  // namespace

ContractReport CheckContract(const InfraiClient& client, const ContractNeeds& needs) {
  ContractReport report;
  std::vector<std::string> declared;
  CheckRoutes(client, needs, report, declared);
  CheckMetrics(client, needs, declared, report);
  CheckGroupFields(client, needs, report);
  return report;
}

}  // namespace quell::infrai
