#pragma once

#include <string>
#include <vector>

#include "quell/adapters/infrai/infrai_client.h"

namespace quell::infrai {

// What a config needs from the live Infrai surface, gathered per condition.
struct RouteNeed {
  std::string condition;
  std::string method;
  std::string path;  // e.g. "/v1/errors/group_detail/{id}"
};

struct MetricNeed {
  std::string condition;
  std::string metric;               // a series name that must appear
  std::vector<std::string> labels;  // labels the condition filters, groups or keys by
  QueryParams params;               // query parameters the condition sends
};

struct GroupFieldNeed {
  std::string condition;
  std::vector<std::string> fields;  // key template fields, e.g. "tags.tenant"
};

struct ContractNeeds {
  std::vector<RouteNeed> routes;
  std::vector<MetricNeed> metrics;
  std::vector<GroupFieldNeed> group_fields;
};

// One problem, one line: kind is "missing", "unavailable", "undeclared", "not seen" or
// "unreachable"; the text names the condition and what it needs.
struct ContractProblem {
  std::string kind;
  std::string text;
};

struct ContractReport {
  std::vector<ContractProblem> problems;
  std::vector<std::string> checked;  // what was looked at, for the summary
};

// Reads the public discovery manifest and checks every route the config needs is listed and
// available. Because metrics.query declares no filter parameters in discovery, metric filters
// are checked against what the live surface returns: one query per distinct parameter set,
// whose series must show each metric and label a condition uses; parameters a condition sends
// that discovery does not declare are reported too. Key template fields are looked for on the
// first listing page, which must also carry every field the conditions read (fields_read in
// the client's options) in most of its groups, as every poll demands. A transport failure is an
// "unreachable" problem, never a pass.
ContractReport CheckContract(const InfraiClient& client, const ContractNeeds& needs);

}  // namespace quell::infrai
