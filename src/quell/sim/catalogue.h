#pragma once

#include <nlohmann/json.hpp>

namespace quell::sim {

// Every capability the simulator serves, each as its full discovery detail object:
// {id, method, path, summary, available, regions, vendors, billing, params, response, errors,
//  examples}. Built once; the shape beyond id/method/path/available/regions/vendors/billing is
// [INF] (INFRAI.md §4). metrics.query and logs.search declare no params, as the real one does.
const nlohmann::json& CapabilityCatalogue();

}  // namespace quell::sim
