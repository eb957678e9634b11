#pragma once

#include <simdjson.h>

#include <string_view>

#include "quell/core/ports/http_client.h"
#include "quell/core/result.h"

namespace quell::infrai {

// Opens Infrai's {ok, data, error, metadata} envelope. The envelope is decoded before the HTTP
// status is trusted, as Infrai's clients do: an `ok:false` body says more than its status.
// Returns `data` (an object), or an error whose code tells the poller what to do:
//   401/403 -> kPermissionDenied, 402 (INSUFFICIENT_CREDIT) -> kRejected, 404 -> kNotFound,
//   429/5xx -> kUnavailable, a body that is not an enveloped object -> kCorrupt.
// Messages name `what` (e.g. "GET /v1/errors/groups") and Infrai's code, message and hint;
// they never quote the request's headers.
core::Result<simdjson::dom::object> OpenEnvelope(simdjson::dom::parser& parser,
                                                 const core::HttpResponse& response,
                                                 std::string_view what);

// The same for a body that is not enveloped (the discovery manifest): the parsed object.
core::Result<simdjson::dom::object> OpenBareObject(simdjson::dom::parser& parser,
                                                   const core::HttpResponse& response,
                                                   std::string_view what);

}  // namespace quell::infrai
