#include "quell/adapters/jsonl/fd_observation_stream.h"

#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <system_error>
#include <utility>

namespace quell::jsonl {

FdObservationStream::FdObservationStream(int fd, bool skip_invalid,
                                         ObservationParserOptions parsing, std::FILE* err,
                                         size_t read_bytes)
    : fd_(fd),
      skip_invalid_(skip_invalid),
      err_(err),
      read_bytes_(read_bytes),
      actions_(parsing.limits, parsing.now),
      parser_(std::move(parsing)) {
  Restart();
}

core::Result<bool> FdObservationStream::Next(core::Observation& out) { return Read(&out, nullptr); }

core::Result<bool> FdObservationStream::Next(app::ReplayItem& out) { return Read(nullptr, &out); }

core::Result<bool> FdObservationStream::Read(core::Observation* observation,
                                             app::ReplayItem* item) {
  std::string_view line;
  size_t readable = 0;
  while (reader_->Next(line, readable)) {
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    core::Status status;
    if (!actions_.IsAction(line, readable)) {
      if (item != nullptr) item->is_action = false;
      status = parser_.Parse(line, readable, item != nullptr ? item->observation : *observation);
    } else if (item == nullptr) {
      status = core::MakeError(core::ErrorCode::kInvalidArgument, kActionNeedsMessages);
    } else {
      item->is_action = true;
      status = actions_.Parse(line, readable, item->action);
      item->action.where = "stdin:" + std::to_string(reader_->line_number());
    }
    if (status) return true;
    const std::string where = "stdin:" + std::to_string(reader_->line_number()) + ": ";
    if (!skip_invalid_) {
      return core::MakeError(core::ErrorCode::kInvalidArgument, where + status.error().message);
    }
    std::fprintf(err_, "%s%s\n", where.c_str(), status.error().message.c_str());
    ++invalid_;
  }
  if (reader_->error() != 0) {
    return core::MakeError(
        core::ErrorCode::kUnavailable,
        std::string("cannot read stdin: ") + std::generic_category().message(reader_->error()));
  }
  return false;
}

core::Status FdObservationStream::Rewind() {
  struct stat st {};
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || lseek(fd_, 0, SEEK_SET) != 0) {
    return core::MakeError(core::ErrorCode::kUnavailable,
                           "stdin is not a regular file and cannot be read again");
  }
  Restart();
  return {};
}

void FdObservationStream::Restart() {
  reader_ = std::make_unique<LineReader>(fd_, ObservationParser::kPadding, read_bytes_);
  invalid_ = 0;
}

}  // namespace quell::jsonl
