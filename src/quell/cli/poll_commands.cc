#include "quell/cli/poll_commands.h"

#include <memory>
#include <optional>
#include <string>

#include "quell/adapters/config/config_loader.h"
#include "quell/adapters/jsonl/decision_line.h"
#include "quell/adapters/prometheus/query_check.h"
#include "quell/cli/poll_wiring.h"
#include "quell/cli/store_url.h"

namespace quell::cli {
namespace {

constexpr int kConfigError = 2;

class PrintingSink : public app::DecisionSink {
 public:
  explicit PrintingSink(std::FILE* out) : out_(out) {}
  void OnDecision(const core::Observation& observation, const core::Decision& decision) override {
    line_.clear();
    jsonl::AppendDecisionLine(line_, observation, decision);
    std::fwrite(line_.data(), 1, line_.size(), out_);
  }
  void Reset() override {}

 private:
  std::FILE* out_;
  std::string line_;
};

std::string Summary(const app::ConditionOutcome& c) {
  std::string line = c.condition + " (" + c.source + "): ";
  if (!c.applied) return line + "not applied: " + c.apply_error;
  const auto& by = c.summary.poll.by_decision;
  const auto n = [&by](core::DecisionKind kind) {
    return std::to_string(by[static_cast<size_t>(kind)]);
  };
  line += std::to_string(c.observations) + " observations, " + n(core::DecisionKind::kNotify) +
          " notify, " + n(core::DecisionKind::kResolve) + " resolve, " +
          n(core::DecisionKind::kUpdateOnly) + " update_only, " +
          n(core::DecisionKind::kWaitForHealth) + " wait_for_health, " +
          n(core::DecisionKind::kUnknown) + " unknown; " +
          std::to_string(c.summary.poll.outbox_rows) + " outbox rows";
  if (c.enriched + c.enrich_failed > 0) {
    line += "; " + std::to_string(c.enriched) + " enriched";
    if (c.enrich_failed > 0) line += ", " + std::to_string(c.enrich_failed) + " detail failed";
  }
  if (!c.source_ok) line += "\n  source failed, open incidents held as unknown: " + c.source_error;
  return line;
}

struct Loaded {
  config::Config config;
  std::optional<core::Store> store;
  core::Clock* clock = nullptr;
  std::unique_ptr<PollWiring> wiring;
};

// Loads the config, opens the store and wires the sources; prints why and returns null when
// any of that fails.
std::unique_ptr<Loaded> Load(const PollCommandOptions& options, core::Clock& clock,
                             const char* command, std::FILE* err) {
  auto config = config::LoadConfig(options.config_path, config::ProcessEnv());
  if (!config) {
    std::fprintf(err, "quell %s: %s\n", command, config.error().message.c_str());
    return nullptr;
  }
  auto loaded = std::make_unique<Loaded>();
  loaded->clock = &clock;
  loaded->config = std::move(*config);
  const std::string url = options.store_url.empty() ? loaded->config.store_url : options.store_url;
  auto store = OpenStore(url);
  if (!store) {
    std::fprintf(err, "quell %s: %s\n", command, store.error().message.c_str());
    return nullptr;
  }
  loaded->store.emplace(std::move(*store));
  auto wiring = PollWiring::Create(loaded->config, loaded->store->incidents(), *loaded->clock);
  if (!wiring) {
    std::fprintf(err, "quell %s: %s\n", command, wiring.error().message.c_str());
    return nullptr;
  }
  loaded->wiring = std::move(*wiring);
  return loaded;
}

}  // namespace

int RunPollOnce(const PollCommandOptions& options, core::Clock& clock, std::FILE* out,
                std::FILE* err) {
  auto loaded = Load(options, clock, "poll-once", err);
  if (!loaded) return kConfigError;
  PrintingSink sink(out);
  const app::CycleReport report = loaded->wiring->RunCycle(sink);
  std::fflush(out);
  for (const app::ConditionOutcome& condition : report.conditions) {
    std::fprintf(err, "%s\n", Summary(condition).c_str());
  }
  return report.ok() ? 0 : 1;
}

int RunSchemaCheck(const PollCommandOptions& options, core::Clock& clock, std::FILE* out,
                   std::FILE* err) {
  auto loaded = Load(options, clock, "schema check", err);
  if (!loaded) return kConfigError;
  size_t problems = 0;
  const infrai::InfraiClient* client = loaded->wiring->infrai();
  if (client != nullptr) {
    const infrai::ContractReport report = infrai::CheckContract(*client, loaded->wiring->Needs());
    for (const infrai::ContractProblem& problem : report.problems) {
      std::fprintf(out, "%s: %s\n", problem.kind.c_str(), problem.text.c_str());
    }
    std::string checked;
    for (const std::string& item : report.checked) checked += (checked.empty() ? "" : "; ") + item;
    if (report.problems.empty()) {
      std::fprintf(out, "schema check: ok against %s (%s)\n", client->options().base_url.c_str(),
                   checked.c_str());
    } else {
      std::fprintf(out, "schema check: %zu problem%s against %s\n", report.problems.size(),
                   report.problems.size() == 1 ? "" : "s", client->options().base_url.c_str());
    }
    problems += report.problems.size();
  }

  // Each Prometheus condition's query, sent once: refused, keeping no series, or missing a
  // label its key reads (which would render as "-").
  prometheus::PrometheusSource* source = loaded->wiring->prometheus();
  if (source != nullptr) {
    size_t checked = 0;
    size_t found = 0;
    size_t warnings = 0;
    for (const auto& entry : loaded->config.metric_conditions) {
      if (entry.source != config::MetricSourceKind::kPrometheus) continue;
      ++checked;
      for (const prometheus::ConditionFinding& finding :
           prometheus::CheckCondition(*source, entry.condition)) {
        std::fprintf(out, "%s%s: %s\n", finding.warning ? "warning: " : "", finding.kind.c_str(),
                     finding.text.c_str());
        (finding.warning ? warnings : found) += 1;
      }
    }
    const std::string& url = loaded->config.prometheus.url;
    if (found == 0) {
      std::fprintf(
          out, "schema check: ok against %s (%zu Prometheus condition%s%s)\n", url.c_str(), checked,
          checked == 1 ? "" : "s",
          warnings > 0
              ? (", " + std::to_string(warnings) + " warning" + (warnings == 1 ? "" : "s")).c_str()
              : "");
    } else {
      std::fprintf(out, "schema check: %zu problem%s against %s\n", found, found == 1 ? "" : "s",
                   url.c_str());
    }
    problems += found;
  }
  if (client == nullptr && source == nullptr) {
    std::fprintf(out, "schema check: no condition uses Infrai or Prometheus; nothing to check\n");
  }
  return problems == 0 ? 0 : 1;
}

}  // namespace quell::cli
