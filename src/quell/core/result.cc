#include "quell/core/result.h"

namespace quell::core {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kConflict:
      return "conflict";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kRejected:
      return "rejected";
    case ErrorCode::kCorrupt:
      return "corrupt";
    case ErrorCode::kPermissionDenied:
      return "permission_denied";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "internal";
}

}  // namespace quell::core
