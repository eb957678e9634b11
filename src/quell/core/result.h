#pragma once

#include <string>
#include <utility>
#include <variant>

namespace quell::core {

// What went wrong, coarse enough for a caller to decide whether to retry.
enum class ErrorCode {
  kInvalidArgument,  // the input is malformed; retrying the same input fails again
  kNotFound,
  kConflict,     // a compare-and-set lost a race; re-read and re-evaluate
  kUnavailable,  // the peer or the store cannot be reached right now
  kTimeout,
  kRejected,  // the peer refused the request (an HTTP 4xx); permanent
  kCorrupt,   // stored data cannot be read back
  kPermissionDenied,
  kInternal,
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;

  // Unavailable and timeout are transient; everything else fails the same way again.
  bool IsRetryable() const {
    return code == ErrorCode::kUnavailable || code == ErrorCode::kTimeout;
  }
};

inline Error MakeError(ErrorCode code, std::string message) {
  return Error{code, std::move(message)};
}

// A value or an Error, shaped like std::expected (which g++ 12 lacks in C++20).
template <typename T>
class [[nodiscard]] Result {
 public:
  // Implicit on purpose: `return value;` and `return error;` read like std::expected.
  // NOLINTNEXTLINE(google-explicit-constructor)
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  // NOLINTNEXTLINE(google-explicit-constructor)
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<0>(state_); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  // NOLINTNEXTLINE(google-explicit-constructor)
  Result(Error error) : error_(std::move(error)), ok_(false) {}

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace quell::core
