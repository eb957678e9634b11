#include "quell/adapters/wiring/message_replay_wiring.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/adapters/wiring/dispatch_wiring.h"
#include "quell/adapters/wiring/route_lookup.h"
#include "quell/adapters/wiring/store_url.h"
#include "quell/adapters/zones/date_zone_rules.h"

namespace quell::wiring {
namespace {

// Every channel is a recorder, so nothing is ever sent over HTTP.
class NoHttp : public core::HttpBatchClient {
 public:
  void SendAll(std::span<const core::HttpExchange> exchanges, std::span<const uint32_t>,
               const std::function<void(size_t, core::Result<core::HttpResponse>)>& done) override {
    for (size_t i = 0; i < exchanges.size(); ++i) {
      done(i, core::MakeError(core::ErrorCode::kInternal, "replay sends nothing over HTTP"));
    }
  }
};

// A directory of its own under the system's temporary directory, removed with everything in it.
class TempDir {
 public:
  static core::Result<std::unique_ptr<TempDir>> Create() {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    std::string pattern = (ec ? std::filesystem::path("/tmp") : base) / "quell-replay-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      return core::MakeError(core::ErrorCode::kUnavailable,
                             "cannot create a temporary directory " + pattern + ": " +
                                 std::generic_category().message(errno));
    }
    return std::unique_ptr<TempDir>(new TempDir(pattern));
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace

core::Status ClaimNewStoreFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int error = errno;
    return core::MakeError(
        core::ErrorCode::kInvalidArgument,
        "--store: " + path + ": " +
            (error == EEXIST ? std::string("already exists; replay keeps only a store it made")
                             : std::generic_category().message(error)));
  }
  ::close(fd);
  return {};
}

core::Result<std::optional<core::WallTime>> RunMessageReplay(const config::Config& config,
                                                             app::ReplayInput& input,
                                                             app::ReplayedMessageSink& sink,
                                                             std::optional<core::WallTime> until,
                                                             const std::string& store_path) {
  templates::RendererOptions renderer_options = RendererOptionsFor(config);
  if (auto checked = templates::CheckTemplates(renderer_options); !checked) {
    return checked.error();
  }
  templates::MustacheRenderer renderer(std::move(renderer_options));

  std::unique_ptr<TempDir> dir;
  std::string path = store_path;
  if (path.empty()) {
    auto made = TempDir::Create();
    if (!made) return made.error();
    dir = std::move(*made);
    path = dir->path() + "/replay.db";
  }
  auto store = OpenStore("sqlite:" + path);
  if (!store) return store.error();

  app::VirtualClock clock{core::WallTime{}};
  NoHttp http;
  app::Dispatcher dispatcher(store->outbox(), renderer, http, clock,
                             DispatcherOptionsFor(config, "replay"));
  std::vector<std::unique_ptr<app::RecordingChannel>> recorders;
  std::vector<app::RecordingChannel*> recorder_list;
  for (const config::ChannelConfig& channel : config.channels) {
    recorders.push_back(std::make_unique<app::RecordingChannel>());
    recorder_list.push_back(recorders.back().get());
    dispatcher.AddChannel(channel.name, std::string(channel.type()), *recorders.back(),
                          ChannelLimitsFor(channel, config));
  }

  app::MessageReplayOptions options;
  options.until = until;
  options.defaults.policy = config.defaults.policy;
  options.defaults.channels = config.defaults.channels;
  options.defaults.escalation = config.defaults.escalation;
  options.defaults.routes = config.defaults.routes;
  options.defaults.severity_of = SeverityFromConfig(config);
  options.defaults.shadow = config.defaults.shadow;
  options.defaults.tenant_budget_per_hour = config.dispatch.budget.per_hour;
  options.defaults.maintenance = config.maintenance;
  options.defaults.zones = &zones::SystemZoneRules();
  for (const config::ChannelConfig& channel : config.channels) {
    if (channel.delivery.grouping) {
      options.defaults.grouping.emplace(channel.name, *channel.delivery.grouping);
    }
  }
  for (const core::ErrorGroupCondition& condition : config.error_conditions) {
    options.conditions.emplace(condition.common.name, condition.common);
  }
  for (const config::MetricConditionConfig& entry : config.metric_conditions) {
    options.conditions.emplace(entry.condition.common.name, entry.condition.common);
  }
  for (const core::PushCondition& condition : config.push_conditions) {
    options.conditions.emplace(condition.common.name, condition.common);
  }
  for (const config::SentryConditionConfig& entry : config.sentry_conditions) {
    options.conditions.emplace(entry.condition.common.name, entry.condition.common);
  }
  for (const config::DatadogConditionConfig& entry : config.datadog_conditions) {
    options.conditions.emplace(entry.condition.common.name, entry.condition.common);
  }
  jsonl::JsonPayloadEncoder encoder;
  app::OperatorCommands operators(store->incidents(), store->operators(), encoder,
                                  RoutesFromConfig(config));
  app::MessageReplay replay(store->incidents(), encoder, operators, dispatcher, clock,
                            std::move(recorder_list), std::move(options));
  if (auto ran = replay.Run(input, sink); !ran) return ran.error();
  return replay.first_left_out();
}

}  // namespace quell::wiring
