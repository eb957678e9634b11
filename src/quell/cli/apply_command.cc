#include "quell/cli/apply_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/jsonl/decision_line.h"
#include "quell/adapters/jsonl/line_reader.h"
#include "quell/adapters/jsonl/observation_parser.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/app/poll_applier.h"
#include "quell/cli/store_url.h"

namespace quell::cli {
namespace {

constexpr int kUsageError = 2;

// Observation JSON Lines from a file descriptor. Rewind works when it is a regular file.
class FdObservationStream : public core::ObservationStream {
 public:
  FdObservationStream(int fd, bool skip_invalid, jsonl::ObservationParserOptions parsing,
                      std::FILE* err)
      : fd_(fd), skip_invalid_(skip_invalid), err_(err), parser_(std::move(parsing)) {
    Restart();
  }

  core::Result<bool> Next(core::Observation& out) override {
    std::string_view line;
    size_t readable = 0;
    while (reader_->Next(line, readable)) {
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      auto status = parser_.Parse(line, readable, out);
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

  core::Status Rewind() override {
    struct stat st {};
    if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || lseek(fd_, 0, SEEK_SET) != 0) {
      return core::MakeError(core::ErrorCode::kUnavailable,
                             "stdin is not a regular file and cannot be read again");
    }
    Restart();
    return {};
  }

  uint64_t invalid() const { return invalid_; }

 private:
  void Restart() {
    reader_ = std::make_unique<jsonl::LineReader>(fd_, jsonl::ObservationParser::kPadding);
    invalid_ = 0;
  }

  int fd_;
  bool skip_invalid_;
  std::FILE* err_;
  jsonl::ObservationParser parser_;
  std::unique_ptr<jsonl::LineReader> reader_;
  uint64_t invalid_ = 0;
};

// Holds decision lines in an unlinked temporary file until the poll commits, so a million-key
// poll does not hold its output in memory and nothing is printed for a batch that rolled back.
class SpoolSink : public app::DecisionSink {
 public:
  SpoolSink() : spool_(std::tmpfile()) {}
  ~SpoolSink() override {
    if (spool_ != nullptr) std::fclose(spool_);
  }
  bool ok() const { return spool_ != nullptr && !failed_; }

  void OnDecision(const core::Observation& observation, const core::Decision& decision) override {
    jsonl::AppendDecisionLine(buffer_, observation, decision);
    if (buffer_.size() >= kFlushBytes) Flush();
  }
  void Reset() override {
    buffer_.clear();
    if (spool_ != nullptr) {
      failed_ = std::fflush(spool_) != 0 || ftruncate(fileno(spool_), 0) != 0;
      std::rewind(spool_);
    }
  }

  // Copies everything to `out`.
  bool CopyTo(std::FILE* out) {
    Flush();
    if (!ok() || std::fflush(spool_) != 0) return false;
    std::rewind(spool_);
    char chunk[1 << 16];
    size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, spool_)) > 0) {
      if (std::fwrite(chunk, 1, n, out) != n) return false;
    }
    return std::fflush(out) == 0;
  }

 private:
  static constexpr size_t kFlushBytes = size_t{1} << 16;
  void Flush() {
    if (spool_ == nullptr || buffer_.empty()) return;
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), spool_) != buffer_.size()) failed_ = true;
    buffer_.clear();
  }

  std::FILE* spool_;
  std::string buffer_;
  bool failed_ = false;
};

std::string GeneratedPollId(core::WallTime now) {
  std::string id = "apply-";
  core::AppendRfc3339(id, now);
  id += "-" + std::to_string(getpid());
  return id;
}

// The config's limits when there is a config, else the defaults.
core::Result<core::InputLimits> InputLimitsOf(const std::string& config_path) {
  if (config_path.empty()) return core::InputLimits{};
  auto config = config::LoadConfig(config_path, config::ProcessEnv());
  if (!config) return core::MakeError(core::ErrorCode::kInvalidArgument, config.error().message);
  return config->limits;
}

}  // namespace

int RunApply(const ApplyCommandOptions& options, core::Clock& clock, int in_fd, std::FILE* out,
             std::FILE* err) {
  auto url = ChooseStoreUrl(options.store_url, options.config_path);
  auto store = url ? OpenStore(*url) : core::Result<core::Store>(url.error());
  if (!store) {
    std::fprintf(err, "quell apply: %s\n", store.error().message.c_str());
    return store.error().code == core::ErrorCode::kInvalidArgument ? kUsageError : 1;
  }
  // "now" is read once, here, and passed down.
  const core::WallTime now = clock.Now();
  auto limits = InputLimitsOf(options.config_path);
  if (!limits) {
    std::fprintf(err, "quell apply: %s\n", limits.error().message.c_str());
    return kUsageError;
  }
  app::ApplyOptions apply;
  apply.policy = options.policy;
  apply.chunk_observations = options.chunk_observations;
  apply.decision_retention = options.decision_retention;
  apply.record_unchanged_poll = !options.poll_id.empty();
  const std::string poll_id = options.poll_id.empty() ? GeneratedPollId(now) : options.poll_id;

  jsonl::JsonPayloadEncoder encoder;
  app::PollApplier applier(store->incidents(), encoder, apply);
  FdObservationStream stream(
      in_fd, options.skip_invalid,
      jsonl::ObservationParserOptions{.limits = *limits, .now = now, .redact = {}}, err);
  SpoolSink sink;
  if (!sink.ok()) {
    std::fprintf(err, "quell apply: cannot create a temporary file: %s\n",
                 std::generic_category().message(errno).c_str());
    return 1;
  }
  auto summary = applier.Apply(stream, poll_id, now, sink);
  if (!summary) {
    std::fprintf(err, "quell apply: %s\n", summary.error().message.c_str());
    std::fprintf(err, "quell apply: nothing was applied\n");
    return 1;
  }
  if (!sink.CopyTo(out)) {
    std::fprintf(err, "quell apply: applied, but cannot write the decisions: %s\n",
                 std::generic_category().message(errno).c_str());
    return 1;
  }
  if (stream.invalid() > 0) {
    std::fprintf(err, "quell apply: skipped %llu invalid line%s\n",
                 static_cast<unsigned long long>(stream.invalid()),
                 stream.invalid() == 1 ? "" : "s");
  }
  return 0;
}

}  // namespace quell::cli
