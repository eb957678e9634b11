#pragma once

#include <cstdio>
#include <string>

#include "quell/core/conditions/shadow_report.h"

namespace quell::text_output {

// `quell shadow-report --format json`: one object with since, decisions (by name),
// error_groups, keys, merged_keys, split_groups, merged [{key, groups, sample_groups}] and
// split [{group_id, keys, sample_keys}]. The field names are a stable contract.
std::string ShadowReportJson(const core::ShadowReport& report);

// The report for people: the decision counts, then a table of the keys merging several error
// groups and one of the groups split over several keys. `since` is the --since text as given.
void PrintShadowReport(std::FILE* out, const core::ShadowReport& report, const std::string& since);

}  // namespace quell::text_output
