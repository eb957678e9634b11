// The quell executable: the only place that wires concrete adapters together.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

#include "quell/adapters/system/system_clock.h"
#include "quell/cli/apply_command.h"
#include "quell/cli/command_suggestion.h"
#include "quell/cli/dispatch_command.h"
#include "quell/cli/maintenance_command.h"
#include "quell/cli/operator_commands.h"
#include "quell/cli/policy_flags.h"
#include "quell/cli/poll_commands.h"
#include "quell/cli/replay_command.h"
#include "quell/cli/run_command.h"
#include "quell/cli/shadow_report_command.h"
#include "quell/cli/status_command.h"
#include "quell/cli/store_commands.h"
#include "quell/cli/version.h"
#include "quell/demo/run_demo.h"

namespace {

constexpr int kUsageError = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "quell keeps one incident per stable dedupe key and stays quiet until it meaningfully "
      "changes:\nit notifies on open, renotifies only after the cooldown, and resolves after a "
      "streak of healthy polls.",
      "quell"};
  app.set_version_flag("--version", std::string("quell ") + quell::cli::kVersion);
  app.require_subcommand(1);

  quell::cli::ReplayOptions replay;
  quell::cli::PolicyFlags replay_policy;
  CLI::App* replay_cmd = app.add_subcommand(
      "replay",
      "Decide observation JSON Lines from stdin in memory; print one decision line per "
      "observation");
  replay_policy.AddTo(*replay_cmd);
  replay_cmd->add_flag("--skip-invalid", replay.skip_invalid,
                       "Report and count malformed lines instead of stopping at the first");
  quell::cli::MessageReplayOptions message_replay;
  bool replay_messages = false;
  CLI::Option* replay_messages_flag = replay_cmd->add_flag(
      "--messages", replay_messages,
      "Print the messages the config's channels would be sent (virtual time, no sends); "
      "applies ack, resolve and silence lines at their time");
  replay_cmd
      ->add_option("-c,--config", message_replay.config_path,
                   "quell.yaml whose policies, channels and grouping --messages applies")
      ->needs(replay_messages_flag);
  replay_messages_flag->needs("-c");
  replay_cmd
      ->add_option("--until", message_replay.until,
                   "RFC 3339: after the last line, run the clock on to this time and print "
                   "what falls due by then (tiers, group waits, retries, digests)")
      ->needs(replay_messages_flag);
  replay_cmd
      ->add_option("--store", message_replay.store_url,
                   "sqlite:PATH, a new file: keep the replay's store there (incidents, decisions, "
                   "outbox) to read with --store afterwards; refused if PATH exists")
      ->needs(replay_messages_flag);

  quell::cli::ApplyCommandOptions apply;
  quell::cli::PolicyFlags apply_policy;
  std::string apply_retention = "720h";
  CLI::App* apply_cmd = app.add_subcommand(
      "apply",
      "Apply observation JSON Lines from stdin durably as one poll (incidents, decision log, "
      "outbox); print one decision line per observation after the commit");
  apply_policy.AddTo(*apply_cmd);
  apply_cmd->add_option("--store", apply.store_url,
                        "sqlite:PATH or postgresql://... (wins over -c; default: the config's, "
                        "else sqlite:quell.db)");
  apply_cmd->add_option("-c,--config", apply.config_path, "Take the store from this quell.yaml");
  apply_cmd->add_flag("--skip-invalid", apply.skip_invalid,
                      "Report and count malformed lines instead of stopping at the first");
  apply_cmd->add_option("--poll-id", apply.poll_id,
                        "Name this poll; a poll id applied before records nothing new");
  apply_cmd
      ->add_option("--chunk", apply.chunk_observations,
                   "Observations evaluated and written per round trip")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  apply_cmd
      ->add_option("--decision-retention", apply_retention,
                   "Delete decision log lines older than this (Go duration; 0 keeps them)")
      ->capture_default_str();

  quell::cli::StoreQueryOptions query;
  std::string format = "table";
  auto add_query_flags = [&](CLI::App* command) {
    command->add_option("--store", query.store_url,
                        "sqlite:PATH or postgresql://... (wins over -c; default: the config's, "
                        "else sqlite:quell.db)");
    command->add_option("-c,--config", query.config_path, "Take the store from this quell.yaml");
    command->add_option("--format", format, "table or jsonl")
        ->check(CLI::IsMember({"table", "jsonl"}))
        ->capture_default_str();
  };
  CLI::App* incidents_cmd = app.add_subcommand("incidents", "Inspect the durable incidents");
  incidents_cmd->require_subcommand(1);
  CLI::App* incidents_list =
      incidents_cmd->add_subcommand("list", "The incidents, by key; filtered as GET /v1/incidents");
  add_query_flags(incidents_list);
  quell::cli::IncidentListFlags list_filter;
  incidents_list->add_option("--status", list_filter.status, "open, resolved or all (default)");
  incidents_list->add_option("--condition", list_filter.condition, "Only this condition's");
  incidents_list->add_option("--label", list_filter.label, "Only those with this NAME=VALUE label");
  incidents_list->add_option("--limit", list_filter.limit,
                             "At most this many (1 to 10000); stderr says how many matched");
  std::string show_key;
  CLI::App* incidents_show = incidents_cmd->add_subcommand("show", "One incident in full");
  incidents_show->add_option("KEY", show_key, "The dedupe key")->required();
  add_query_flags(incidents_show);
  CLI::App* outbox_cmd = app.add_subcommand("outbox", "Inspect the transactional outbox");
  outbox_cmd->require_subcommand(1);
  CLI::App* outbox_list = outbox_cmd->add_subcommand("list", "Outbox rows by incident");
  add_query_flags(outbox_list);
  std::string outbox_status;
  outbox_list->add_option("--status", outbox_status,
                          "pending, in_flight, sent, dead, shadow, superseded, folded, "
                          "silenced, dropped, grouped, muted, cancelled or inhibited");
  const quell::cli::OperatorCli operator_cli(app, *incidents_cmd, *outbox_cmd);

  quell::cli::PollCommandOptions poll;
  CLI::App* poll_once_cmd = app.add_subcommand(
      "poll-once",
      "Run one poll cycle from a config: poll every source, decide, persist, write the outbox; "
      "print one decision line per observation");
  poll_once_cmd->add_option("-c,--config", poll.config_path, "The quell.yaml to run")
      ->capture_default_str();
  poll_once_cmd->add_option("--store", poll.store_url,
                            "sqlite:PATH or postgresql://... (default: the config's store)");
  CLI::App* schema_cmd = app.add_subcommand("schema", "Check the live source contract");
  schema_cmd->require_subcommand(1);
  CLI::App* schema_check_cmd = schema_cmd->add_subcommand(
      "check",
      "Read Infrai's live discovery manifest and answers; report each capability, metric or "
      "field the config needs that the live surface lacks");
  schema_check_cmd->add_option("-c,--config", poll.config_path, "The quell.yaml to check")
      ->capture_default_str();

  quell::cli::DispatchCommandOptions dispatch;
  CLI::App* dispatch_cmd = app.add_subcommand(
      "dispatch",
      "Deliver the outbox through the configured channels: claim due rows with a lease, send "
      "with each row's idempotency key, retry, dead-letter");
  dispatch_cmd->add_option("-c,--config", dispatch.config_path, "The quell.yaml to run")
      ->capture_default_str();
  dispatch_cmd->add_option("--store", dispatch.store_url,
                           "sqlite:PATH or postgresql://... (default: the config's store)");
  dispatch_cmd->add_option("--owner", dispatch.owner,
                           "The lease owner id (default: host:pid:random)");
  dispatch_cmd->add_flag("--once", dispatch.once, "Deliver what is due now, then exit");

  CLI::App* demo_cmd = app.add_subcommand(
      "demo",
      "Play a scripted support-agent outage against a built-in quell-sim and a receiver that "
      "times out after accepting, on a clock 60x the wall (under a minute); check that one "
      "open and one resolve arrived, no duplicate");
  bool demo_keep = false;
  demo_cmd->add_flag("--keep", demo_keep,
                     "Keep its temporary directory (the config and the store) to look at after");

  quell::cli::RunCommandOptions run;
  CLI::App* run_cmd = app.add_subcommand(
      "run",
      "The daemon: poll each condition at its interval, decide, persist and dispatch in one "
      "process until SIGTERM or SIGINT; SIGHUP reloads the config");
  run_cmd->add_option("-c,--config", run.config_path, "The quell.yaml to run")
      ->capture_default_str();
  run_cmd->add_option("--store", run.store_url,
                      "sqlite:PATH or postgresql://... (default: the config's store)");
  run_cmd->add_option("--owner", run.owner,
                      "The dispatcher's lease owner id (default: host:pid:random)");
  run_cmd->add_flag("--no-dispatch", run.no_dispatch,
                    "Poll only; a separate `quell dispatch` delivers the outbox");

  quell::cli::ConfigCheckOptions check;
  CLI::App* config_cmd = app.add_subcommand("config", "Work with the config file");
  config_cmd->require_subcommand(1);
  CLI::App* config_check_cmd = config_cmd->add_subcommand(
      "check",
      "Report every problem of a quell.yaml that would stop `quell run`, with file:line:column "
      "(secrets, channels, templates, each PromQL query sent once to Prometheus); exit 2 when "
      "any");
  // The file may also come bare (`quell config check quell.yaml`), as people type it.
  config_check_cmd->add_option("-c,--config,CONFIG", check.config_path, "The quell.yaml to check")
      ->capture_default_str();
  config_check_cmd->add_flag("--offline", check.offline,
                             "Send nothing over the network (the PromQL queries go unchecked)");
  config_check_cmd->add_option("--running", check.running_path,
                               "The config the daemon runs now: name the changes a reload "
                               "(SIGHUP) cannot apply, which need a restart");
  quell::cli::MaintenanceListOptions maintenance;
  CLI::App* maintenance_cmd =
      app.add_subcommand("maintenance", "The config's recurring maintenance windows");
  maintenance_cmd->require_subcommand(1);
  CLI::App* maintenance_list_cmd = maintenance_cmd->add_subcommand(
      "list", "Each window, whether it is open, and its current or next occurrence");
  maintenance_list_cmd->add_option("-c,--config,CONFIG", maintenance.config_path, "The quell.yaml")
      ->capture_default_str();
  maintenance_list_cmd->add_option("--at", maintenance.at, "RFC 3339 time to ask about (now)");
  quell::cli::ShadowReportCommandOptions shadow;
  CLI::App* shadow_cmd = app.add_subcommand(
      "shadow-report",
      "Before a real rollout: notify, update_only and resolve counts against the error groups "
      "seen failing, keys that merge many groups and groups split over many keys");
  shadow_cmd->add_option("--since", shadow.since, "How far back to look, e.g. 24h or 90m")
      ->capture_default_str();
  shadow_cmd->add_option("-c,--config", shadow.config_path, "Read the store URL from this config");
  shadow_cmd->add_option("--store", shadow.store_url,
                         "sqlite:PATH or postgresql://... (wins over -c; default: the config's, "
                         "else sqlite:quell.db)");
  shadow_cmd->add_option("--format", shadow.format, "table or json")->capture_default_str();
  shadow_cmd->add_option("--top", shadow.top, "Entries per list")->capture_default_str();

  quell::cli::StatusCommandOptions status_options;
  CLI::App* status_cmd = app.add_subcommand(
      "status",
      "Who polls what: each poll group's lease holder, fencing token and expiry, and every "
      "instance seen on the store");
  status_cmd->add_option("-c,--config,CONFIG", status_options.config_path,
                         "A quell.yaml: its store and the poll groups it polls");
  status_cmd->add_option("--store", status_options.store_url,
                         "sqlite:PATH or postgresql://... (wins over -c; default: the config's, "
                         "else sqlite:quell.db)");
  status_cmd->add_option("--format", status_options.format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A mistyped command reads to CLI11 as a missing one ("A subcommand is required").
    if (e.get_exit_code() != 0) {
      if (auto line = quell::cli::UnknownCommandLine(app, argc, argv)) {
        std::fprintf(stderr, "%s\n", line->c_str());
        return kUsageError;
      }
    }
    // CLI11 prints the message and has a code per kind of mistake (106, 109, ...); quell
    // promises 2 for every usage error. --help and --version stay 0.
    return app.exit(e) == 0 ? 0 : kUsageError;
  }

  // The one clock of the process: every command reads the time from it.
  quell::system::SystemClock clock;
  if (demo_cmd->parsed()) return quell::demo::RunDemo(stdout, stderr, demo_keep);
  if (replay_cmd->parsed() && replay_messages) {
    // The config's policies decide; a policy flag would be silently ignored.
    for (const CLI::Option* option : replay_cmd->get_options()) {
      if (option->count() == 0 || option == replay_messages_flag || option->check_name("-c") ||
          option->check_name("--skip-invalid") || option->check_name("--until") ||
          option->check_name("--store")) {
        continue;
      }
      std::fprintf(stderr,
                   "quell replay: %s does not apply with --messages (the config's "
                   "policies do)\n",
                   option->get_name().c_str());
      return kUsageError;
    }
    message_replay.skip_invalid = replay.skip_invalid;
    return quell::cli::RunMessageReplay(message_replay, STDIN_FILENO, stdout, stderr);
  }
  if (replay_cmd->parsed()) {
    auto policy = replay_policy.Resolve();
    if (!policy) {
      std::fprintf(stderr, "quell replay: %s\n", policy.error().message.c_str());
      return kUsageError;
    }
    replay.policy = *policy;
    return quell::cli::RunReplay(replay, STDIN_FILENO, stdout, stderr);
  }
  if (apply_cmd->parsed()) {
    auto policy = apply_policy.Resolve();
    if (!policy) {
      std::fprintf(stderr, "quell apply: %s\n", policy.error().message.c_str());
      return kUsageError;
    }
    apply.policy = *policy;
    if (apply_retention != "0") {
      auto retention = quell::core::ParseDuration(apply_retention);
      if (!retention) {
        std::fprintf(stderr, "quell apply: --decision-retention: %s\n",
                     retention.error().message.c_str());
        return kUsageError;
      }
      apply.decision_retention = *retention;
    }
    return quell::cli::RunApply(apply, clock, STDIN_FILENO, stdout, stderr);
  }
  if (maintenance_list_cmd->parsed()) {
    return quell::cli::RunMaintenanceList(maintenance, clock.Now(), stdout, stderr);
  }
  if (poll_once_cmd->parsed()) return quell::cli::RunPollOnce(poll, clock, stdout, stderr);
  if (schema_check_cmd->parsed()) return quell::cli::RunSchemaCheck(poll, clock, stdout, stderr);
  if (dispatch_cmd->parsed()) return quell::cli::RunDispatch(dispatch, clock, stderr);
  if (auto code = operator_cli.Run(clock, stdout, stderr)) return *code;
  if (run_cmd->parsed()) return quell::cli::RunDaemonCommand(run, clock, stderr);
  if (config_check_cmd->parsed()) return quell::cli::RunConfigCheck(check, clock, stdout);
  if (status_cmd->parsed())
    return quell::cli::RunStatus(status_options, clock.Now(), stdout, stderr);
  if (shadow_cmd->parsed()) {
    return quell::cli::RunShadowReport(shadow, clock.Now(), stdout, stderr);
  }
  query.format = format == "jsonl" ? quell::text_output::ListFormat::kJsonl
                                   : quell::text_output::ListFormat::kTable;
  if (incidents_list->parsed()) {
    return quell::cli::RunIncidentsList(query, list_filter, stdout, stderr);
  }
  if (incidents_show->parsed()) {
    return quell::cli::RunIncidentsShow(query, show_key, stdout, stderr);
  }
  if (outbox_list->parsed()) {
    std::optional<quell::core::OutboxStatus> status;
    if (!outbox_status.empty()) {
      auto parsed = quell::core::ParseOutboxStatus(outbox_status);
      if (!parsed) {
        std::fprintf(stderr, "quell outbox list: --status: %s\n", parsed.error().message.c_str());
        return kUsageError;
      }
      status = *parsed;
    }
    return quell::cli::RunOutboxList(query, status, stdout, stderr);
  }
  return kUsageError;
}
