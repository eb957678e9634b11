#include "quell/cli/operator_commands.h"

#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "quell/adapters/text_output/listings.h"
#include "quell/adapters/text_output/operator_replies.h"
#include "quell/adapters/wiring/operator_session.h"

namespace quell::cli {
namespace {

constexpr int kFailed = 1;
constexpr int kUsage = 2;

int Fail(std::FILE* err, const std::string& command, const core::Error& error) {
  std::fprintf(err, "quell %s: %s\n", command.c_str(), error.message.c_str());
  return error.code == core::ErrorCode::kInvalidArgument ? kUsage : kFailed;
}

}  // namespace

CLI::App* OperatorCli::Add(CLI::App& parent, const char* name, const char* help,
                           const char* target_name, const char* target_help, bool list) {
  CLI::App* command = parent.add_subcommand(name, help);
  if (target_name != nullptr) {
    command->add_option(target_name, flags_.target, target_help)->required();
  }
  command->add_option("--store", flags_.store_url,
                      "sqlite:PATH or postgresql://... (wins over -c; default: the config's, "
                      "else sqlite:quell.db)");
  command->add_option("-c,--config", flags_.config_path,
                      "A quell.yaml: its store, and the routes a resolve goes to");
  if (list) {
    command->add_option("--format", flags_.format, "table or jsonl")
        ->check(CLI::IsMember({"table", "jsonl"}))
        ->capture_default_str();
  }
  return command;
}

OperatorCli::OperatorCli(CLI::App& app, CLI::App& incidents, CLI::App& outbox) {
  ack_ = Add(incidents, "ack",
             "Acknowledge an open incident: no renotify until it opens again as a new generation",
             "KEY", "The dedupe key", false);
  resolve_ = Add(incidents, "resolve",
                 "Resolve an open incident by hand now; its channels get a resolve message", "KEY",
                 "The dedupe key", false);
  for (CLI::App* command : {ack_, resolve_}) {
    command->add_option("--by", flags_.by, "Who, for the record")->capture_default_str();
  }
  resolve_->add_option("--for", flags_.duration,
                       "Hold the key resolved at most this long while its source still fails "
                       "(Go duration: 90m, 2h); default: until the source is seen healthy");
  resolve_->add_flag("--upstream", flags_.upstream,
                     "Also resolve the key's error groups at Infrai (needs -c; refused for "
                     "metric conditions)");

  CLI::App* silence = app.add_subcommand(
      "silence",
      "Suppress sends for a key or keys matching a pattern (decisions are still recorded)");
  silence->require_subcommand(1);
  silence_add_ =
      Add(*silence, "add", "Silence one key (--key) or keys matching PATTERN for a while", nullptr,
          nullptr, false);
  // PATTERN keeps its meaning (a glob) for existing scripts; a key taken from an incident goes
  // in --key, since keys may hold `*` themselves.
  CLI::Option* pattern = silence_add_->add_option("PATTERN,--pattern", flags_.target,
                                                  "A key glob; * matches any run of characters");
  silence_add_->add_option("--key", flags_.key, "Exactly this key (a * in it is just a *)")
      ->excludes(pattern);
  silence_add_->add_option("--for", flags_.duration, "How long (Go duration: 90m, 2h)")->required();
  silence_add_->add_option("--reason", flags_.reason, "Why, for the record")->required();
  silence_add_->add_option("--by", flags_.by, "Who, for the record")->capture_default_str();
  silence_list_ = Add(*silence, "list", "The active silences, by id", nullptr, nullptr, true);
  silence_remove_ =
      Add(*silence, "remove", "End a silence now", "ID", "The id silence add printed", false);

  CLI::App* dead = outbox.add_subcommand("dead", "Outbox rows that ran out of attempts");
  dead->require_subcommand(1);
  dead_list_ = Add(*dead, "list", "Every dead row", nullptr, nullptr, true);
  dead_retry_ = Add(*dead, "retry",
                    "Send a dead row again (or every one, --all): pending, attempts reset, due now",
                    nullptr, nullptr, false);
  dead_retry_->add_option("IDEMPOTENCY_KEY", flags_.target, "The row's idempotency key (q1-...)");
  dead_retry_->add_flag("--all", flags_.all, "Every dead row, in one transaction");
  dead_retry_->add_option("--channel", flags_.channel, "With --all: only this channel's rows");
  dead_drop_ = Add(*dead, "drop", "Give up on a dead row: marked dropped, kept for the record",
                   "IDEMPOTENCY_KEY", "The row's idempotency key (q1-...)", false);
}

std::optional<int> OperatorCli::Run(core::Clock& clock, std::FILE* out, std::FILE* err) const {
  const std::pair<CLI::App*, const char*> commands[] = {{ack_, "incidents ack"},
                                                        {resolve_, "incidents resolve"},
                                                        {silence_add_, "silence add"},
                                                        {silence_list_, "silence list"},
                                                        {silence_remove_, "silence remove"},
                                                        {dead_list_, "outbox dead list"},
                                                        {dead_retry_, "outbox dead retry"},
                                                        {dead_drop_, "outbox dead drop"}};
  const CLI::App* parsed = nullptr;
  std::string name;
  for (const auto& [command, command_name] : commands) {
    if (command->parsed()) {
      parsed = command;
      name = command_name;
    }
  }
  if (parsed == nullptr) return std::nullopt;

  // Input is checked before the store is opened, so a typo never touches it.
  if (parsed == silence_add_ && flags_.target.empty() == flags_.key.empty()) {
    return Fail(err, name,
                core::MakeError(core::ErrorCode::kInvalidArgument,
                                "give --key KEY (that key only) or PATTERN (a key glob)"));
  }
  std::optional<core::Duration> duration;
  if (parsed == silence_add_ || (parsed == resolve_ && !flags_.duration.empty())) {
    auto d = core::ParseDuration(flags_.duration);
    if (!d) return Fail(err, name, core::MakeError(d.error().code, "--for: " + d.error().message));
    duration = *d;
  }
  uint64_t id = 0;
  if (parsed == silence_remove_) {
    const std::string& t = flags_.target;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), id);
    if (ec != std::errc() || end != t.data() + t.size()) {
      return Fail(err, name,
                  core::MakeError(core::ErrorCode::kInvalidArgument,
                                  "ID wants a silence id (a number), got \"" + t + "\""));
    }
  }

  if (parsed == dead_retry_) {
    const bool key = !flags_.target.empty();
    const char* wrong = key == flags_.all ? "give an IDEMPOTENCY_KEY or --all, not both or neither"
                        : !flags_.channel.empty() && !flags_.all ? "--channel goes with --all"
                                                                 : nullptr;
    if (wrong != nullptr) {
      return Fail(err, name, core::MakeError(core::ErrorCode::kInvalidArgument, wrong));
    }
  }

  const bool upstream = parsed == resolve_ && flags_.upstream;
  auto session = wiring::OpenOperatorSession(flags_.store_url, flags_.config_path, upstream, clock);
  if (!session) return Fail(err, name, session.error());
  app::OperatorCommands& ops = *(*session)->commands;
  const core::WallTime now = clock.Now();
  const auto format =
      flags_.format == "jsonl" ? text_output::ListFormat::kJsonl : text_output::ListFormat::kTable;

  if (parsed == ack_) {
    auto incident = ops.Ack(flags_.target, flags_.by, now);
    if (!incident) return Fail(err, name, incident.error());
    text_output::PrintAcked(out, *incident);
    return 0;
  }
  if (parsed == resolve_) {
    app::ResolveOptions options;
    options.hold_for = duration;
    options.upstream = upstream;
    auto resolved = ops.Resolve(flags_.target, flags_.by, now, options);
    if (!resolved) return Fail(err, name, resolved.error());
    text_output::PrintResolved(out, *resolved);
    return 0;
  }
  if (parsed == silence_add_) {
    const bool exact = !flags_.key.empty();
    auto silence = ops.AddSilence(exact ? core::SilenceMatch::kExact : core::SilenceMatch::kGlob,
                                  exact ? flags_.key : flags_.target, *duration, flags_.reason,
                                  flags_.by, now);
    if (!silence) return Fail(err, name, silence.error());
    text_output::PrintSilenceAdded(out, *silence);
    return 0;
  }
  if (parsed == silence_list_) {
    auto silences = ops.ListSilences(now);
    if (!silences) return Fail(err, name, silences.error());
    text_output::PrintSilences(out, *silences, format);
    return 0;
  }
  if (parsed == silence_remove_) {
    if (auto removed = ops.RemoveSilence(id); !removed) return Fail(err, name, removed.error());
    std::fprintf(out, "removed silence %llu\n", static_cast<unsigned long long>(id));
    return 0;
  }
  if (parsed == dead_list_) {
    auto rows = ops.ListDead();
    if (!rows) return Fail(err, name, rows.error());
    text_output::PrintDeadRows(out, *rows, format);
    return 0;
  }
  if (parsed == dead_retry_ && flags_.all) {
    std::optional<std::string_view> channel;
    if (!flags_.channel.empty()) channel = flags_.channel;
    auto retried = ops.RetryAllDead(channel, now);
    if (!retried) return Fail(err, name, retried.error());
    text_output::PrintRetriedAll(out, *retried, channel);
    return 0;
  }
  if (parsed == dead_retry_) {
    auto status = ops.RetryDead(flags_.target, now);
    if (!status) return Fail(err, name, status.error());
    text_output::PrintRetried(out, flags_.target, *status);
    return 0;
  }
  if (auto dropped = ops.DropDead(flags_.target, now); !dropped) {
    return Fail(err, name, dropped.error());
  }
  std::fprintf(out, "outbox row %s dropped\n", flags_.target.c_str());
  return 0;
}

}  // namespace quell::cli
