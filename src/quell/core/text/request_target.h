#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "quell/core/result.h"

namespace quell::core {

// An HTTP request target split and percent-decoded.
struct RequestTarget {
  std::string path;  // "/v1/incidents/acme%3Ax" -> "/v1/incidents/acme:x"
  // The query's name=value pairs in the order sent; a '+' is a space (HTML forms), a pair
  // without '=' has an empty value, empty pairs ("a=1&&b=2") are skipped.
  std::vector<std::pair<std::string, std::string>> query;
};

// Splits an origin-form request target ("/path?query") at the first '?' and percent-decodes
// the path and each query name and value. kInvalidArgument, with a message fit for the client,
// when the target does not start with '/', holds a '%' not followed by two hex digits, or
// decodes to bytes that are not UTF-8 (a path or query that handlers would print, store or put
// in JSON). Pure: a fuzzer can drive it with any bytes.
Result<RequestTarget> ParseRequestTarget(std::string_view target);

// Whether `text` is well-formed UTF-8 throughout.
bool IsUtf8(std::string_view text);

}  // namespace quell::core
