#include "quell/cli/apply_command.h"

#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/jsonl/decision_sinks.h"
#include "quell/adapters/jsonl/fd_observation_stream.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/wiring/command_store.h"
#include "quell/app/poll_applier.h"

namespace quell::cli {
namespace {

constexpr int kUsageError = 2;

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
  auto store = wiring::OpenCommandStore(
      {.store_flag = options.store_url, .config_path = options.config_path});
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
  app::PollApplier applier(store->store.incidents(), encoder, apply);
  jsonl::FdObservationStream stream(
      in_fd, options.skip_invalid,
      jsonl::ObservationParserOptions{.limits = *limits, .now = now, .redact = {}}, err);
  jsonl::SpooledDecisionSink sink;
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
