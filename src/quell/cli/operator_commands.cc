#include "quell/cli/operator_commands.h"

#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/cli/listing.h"
#include "quell/cli/store_url.h"
#include "quell/cli/upstream_wiring.h"

namespace quell::cli {
namespace {

constexpr int kFailed = 1;
constexpr int kUsage = 2;

std::string TimeText(const std::optional<core::WallTime>& t) {
  return t ? core::FormatRfc3339(*t) : "-";
}

int Fail(std::FILE* err, const std::string& command, const core::Error& error) {
  std::fprintf(err, "quell %s: %s\n", command.c_str(), error.message.c_str());
  return error.code == core::ErrorCode::kInvalidArgument ? kUsage : kFailed;
}

// The store, the config's routes and the use cases over them, for one command.
struct Session {
  std::optional<core::Store> store;
  jsonl::JsonPayloadEncoder encoder;
  std::unique_ptr<UpstreamWiring> upstream;
  std::unique_ptr<app::OperatorCommands> commands;
};

// `upstream`: wire the config's sources for a resolve --upstream (needs `config_path`).
core::Result<std::unique_ptr<Session>> OpenSession(const std::string& store_url,
                                                   const std::string& config_path, bool upstream,
                                                   core::Clock& clock) {
  auto session = std::make_unique<Session>();
  std::string url = store_url;
  app::RouteLookup routes;
  if (upstream && config_path.empty()) {
    return core::MakeError(core::ErrorCode::kInvalidArgument,
                           "--upstream needs -c FILE: the config says which source each "
                           "condition reads and holds its credentials");
  }
  if (!config_path.empty()) {
    auto config = config::LoadConfig(config_path, config::ProcessEnv());
    if (!config) return core::MakeError(core::ErrorCode::kInvalidArgument, config.error().message);
    if (url.empty()) url = config->store_url;
    routes = RoutesFromConfig(*config);
    if (upstream) {
      auto wiring = UpstreamWiring::Create(*config, clock);
      if (!wiring) return wiring.error();
      session->upstream = std::move(*wiring);
    }
  }
  if (url.empty()) url = "sqlite:quell.db";
  auto store = OpenStore(url, StoreAccess::kExisting);
  if (!store) return store.error();
  session->store.emplace(std::move(*store));
  session->commands = std::make_unique<app::OperatorCommands>(session->store->incidents(),
                                                              session->store->operators(),
                                                              session->encoder, std::move(routes));
  if (session->upstream) {
    session->commands->EnableUpstream(session->store->reports(), session->upstream->Lookup());
  }
  return session;
}

std::string Describe(const std::vector<core::OutboxRow>& rows) {
  if (rows.empty()) return "no channel routed, no outbox row";
  std::string out;
  for (const core::OutboxRow& row : rows) {
    if (!out.empty()) out.append(", ");
    out.append(row.channel).append(" ").append(core::OutboxStatusName(row.status));
  }
  return out;
}

}  // namespace

app::RouteLookup RoutesFromConfig(const config::Config& config) {
  std::map<std::string, app::Route, std::less<>> routes;
  for (const auto& condition : config.error_conditions) {
    routes[condition.common.name] = app::Route{condition.common.channels, condition.common.shadow};
  }
  for (const auto& entry : config.metric_conditions) {
    const core::ConditionCommon& common = entry.condition.common;
    routes[common.name] = app::Route{common.channels, common.shadow};
  }
  return [routes = std::move(routes)](std::string_view condition) -> std::optional<app::Route> {
    auto it = routes.find(condition);
    if (it == routes.end()) return std::nullopt;
    return it->second;
  };
}

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
      "silence", "Suppress sends for keys matching a pattern (decisions are still recorded)");
  silence->require_subcommand(1);
  silence_add_ = Add(*silence, "add", "Silence keys matching PATTERN for a while", "PATTERN",
                     "A key glob; * matches any run of characters", false);
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
  auto session = OpenSession(flags_.store_url, flags_.config_path, upstream, clock);
  if (!session) return Fail(err, name, session.error());
  app::OperatorCommands& ops = *(*session)->commands;
  const core::WallTime now = clock.Now();
  const bool jsonl = flags_.format == "jsonl";

  if (parsed == ack_) {
    auto incident = ops.Ack(flags_.target, flags_.by, now);
    if (!incident) return Fail(err, name, incident.error());
    std::fprintf(out, "acked %s (generation %llu) by %s at %s\n", incident->key.c_str(),
                 static_cast<unsigned long long>(incident->generation), incident->acked_by.c_str(),
                 TimeText(incident->acked_at).c_str());
    return 0;
  }
  if (parsed == resolve_) {
    app::ResolveOptions options;
    options.hold_for = duration;
    options.upstream = upstream;
    auto resolved = ops.Resolve(flags_.target, flags_.by, now, options);
    if (!resolved) return Fail(err, name, resolved.error());
    std::fprintf(out, "resolved %s (generation %llu, version %llu): %s\n",
                 resolved->incident.key.c_str(),
                 static_cast<unsigned long long>(resolved->incident.generation),
                 static_cast<unsigned long long>(resolved->incident.version),
                 Describe(resolved->outbox).c_str());
    std::string groups;
    for (const std::string& g : resolved->upstream_groups)
      groups += (groups.empty() ? "" : ", ") + g;
    if (!groups.empty()) std::fprintf(out, "resolved upstream: %s\n", groups.c_str());
    std::fprintf(out, "held resolved until its source is seen healthy%s\n",
                 resolved->incident.held_until
                     ? (" or " + core::FormatRfc3339(*resolved->incident.held_until)).c_str()
                     : "");
    return 0;
  }
  if (parsed == silence_add_) {
    auto silence = ops.AddSilence(flags_.target, *duration, flags_.reason, flags_.by, now);
    if (!silence) return Fail(err, name, silence.error());
    std::fprintf(out, "silence %llu: %s until %s\n", static_cast<unsigned long long>(silence->id),
                 silence->pattern.c_str(), core::FormatRfc3339(silence->expires_at).c_str());
    return 0;
  }
  if (parsed == silence_list_) {
    auto silences = ops.ListSilences(now);
    if (!silences) return Fail(err, name, silences.error());
    if (jsonl) {
      for (const core::Silence& s : *silences) std::fprintf(out, "%s\n", SilenceJson(s).c_str());
      return 0;
    }
    std::vector<std::vector<std::string>> rows = {
        {"ID", "PATTERN", "EXPIRES_AT", "CREATED_BY", "CREATED_AT", "REASON"}};
    for (const core::Silence& s : *silences) {
      rows.push_back({std::to_string(s.id), s.pattern, core::FormatRfc3339(s.expires_at),
                      s.created_by, core::FormatRfc3339(s.created_at), s.reason});
    }
    PrintTable(out, rows);
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
    if (jsonl) {
      for (const core::OutboxRow& r : *rows) std::fprintf(out, "%s\n", OutboxJson(r).c_str());
      return 0;
    }
    std::vector<std::vector<std::string>> table = {{"IDEMPOTENCY_KEY", "KEY", "GEN", "VERSION",
                                                    "TRANSITION", "CHANNEL", "ATTEMPTS",
                                                    "UPDATED_AT", "LAST_ERROR"}};
    for (const core::OutboxRow& r : *rows) {
      table.push_back({r.idempotency_key, r.key, std::to_string(r.generation),
                       std::to_string(r.version), core::TransitionName(r.transition), r.channel,
                       std::to_string(r.attempts), core::FormatRfc3339(r.updated_at),
                       r.last_error.empty() ? "-" : r.last_error});
    }
    PrintTable(out, table);
    return 0;
  }
  if (parsed == dead_retry_ && flags_.all) {
    std::optional<std::string_view> channel;
    if (!flags_.channel.empty()) channel = flags_.channel;
    auto retried = ops.RetryAllDead(channel, now);
    if (!retried) return Fail(err, name, retried.error());
    const uint64_t total = retried->pending + retried->superseded;
    std::fprintf(out, "retried %llu dead rows%s%s: %llu pending, due now; %llu superseded\n",
                 static_cast<unsigned long long>(total), channel ? " on " : "",
                 channel ? flags_.channel.c_str() : "",
                 static_cast<unsigned long long>(retried->pending),
                 static_cast<unsigned long long>(retried->superseded));
    return 0;
  }
  if (parsed == dead_retry_) {
    auto status = ops.RetryDead(flags_.target, now);
    if (!status) return Fail(err, name, status.error());
    std::fprintf(out, "outbox row %s is %s%s\n", flags_.target.c_str(),
                 core::OutboxStatusName(*status),
                 *status == core::OutboxStatus::kPending
                     ? ", due now"
                     : " (a newer message of its incident was sent already)");
    return 0;
  }
  if (auto dropped = ops.DropDead(flags_.target, now); !dropped) {
    return Fail(err, name, dropped.error());
  }
  std::fprintf(out, "outbox row %s dropped\n", flags_.target.c_str());
  return 0;
}

}  // namespace quell::cli
