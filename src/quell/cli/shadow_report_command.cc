#include "quell/cli/shadow_report_command.h"

#include "quell/adapters/text_output/shadow_report_text.h"
#include "quell/adapters/wiring/command_store.h"
#include "quell/app/shadow_report_query.h"

namespace quell::cli {
namespace {

constexpr const char* kCommand = "quell shadow-report";

}  // namespace

int RunShadowReport(const ShadowReportCommandOptions& options, core::WallTime now, std::FILE* out,
                    std::FILE* err) {
  auto since = core::ParseDuration(options.since);
  if (!since) {
    std::fprintf(err, "%s: --since: %s\n", kCommand, since.error().message.c_str());
    return 2;
  }
  if (options.format != "table" && options.format != "json") {
    std::fprintf(err, "%s: --format: expected table or json, got \"%s\"\n", kCommand,
                 options.format.c_str());
    return 2;
  }
  auto store = wiring::OpenCommandStore({.store_flag = options.store_url,
                                         .config_path = options.config_path,
                                         .access = wiring::StoreAccess::kExisting});
  if (!store) {
    std::fprintf(err, "%s: %s\n", kCommand, store.error().message.c_str());
    return store.error().code == core::ErrorCode::kInvalidArgument ? 2 : 1;
  }
  core::ShadowReportOptions report_options;
  report_options.top = options.top;
  auto report = app::QueryShadowReport(store->store.reports(), now - *since, report_options);
  if (!report) {
    std::fprintf(err, "%s: %s\n", kCommand, report.error().message.c_str());
    return 1;
  }
  if (options.format == "json") {
    std::fprintf(out, "%s\n", text_output::ShadowReportJson(*report).c_str());
  } else {
    text_output::PrintShadowReport(out, *report, options.since);
  }
  return 0;
}

}  // namespace quell::cli
