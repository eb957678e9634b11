#include "quell/adapters/text_output/cluster_status_text.h"

#include <optional>
#include <vector>

#include "quell/adapters/text_output/text_table.h"
#include "quell/core/text/json_escape.h"

namespace quell::text_output {
namespace {

void AppendTime(std::string& out, const std::optional<core::WallTime>& t) {
  if (t) {
    core::AppendJsonString(out, core::FormatRfc3339(*t));
  } else {
    out += "null";
  }
}

void AppendField(std::string& out, const char* name) {
  if (out.back() != '{') out += ',';
  core::AppendJsonString(out, name);
  out += ':';
}

void AppendGroup(std::string& out, const app::PollGroupStatus& group, core::WallTime now) {
  const std::optional<core::Lease>& stored = group.stored;
  const bool has_holder = stored && !stored->holder.empty();
  out += '{';
  AppendField(out, "lease");
  core::AppendJsonString(out, group.lease);
  AppendField(out, "conditions");
  out += '[';
  for (size_t i = 0; i < group.conditions.size(); ++i) {
    if (i > 0) out += ',';
    core::AppendJsonString(out, group.conditions[i]);
  }
  out += ']';
  AppendField(out, "held");
  out += group.held ? "true" : "false";
  AppendField(out, "holder");
  if (has_holder) {
    core::AppendJsonString(out, stored->holder);
  } else {
    out += "null";
  }
  AppendField(out, "token");
  out += std::to_string(stored ? stored->token : 0);
  AppendField(out, "expires_at");
  AppendTime(out, stored ? std::optional(stored->expires_at) : std::nullopt);
  AppendField(out, "expired");
  out += !stored || stored->expires_at <= now ? "true" : "false";
  AppendField(out, "acquired_at");
  AppendTime(out, has_holder ? std::optional(stored->acquired_at) : std::nullopt);
  AppendField(out, "renewed_at");
  AppendTime(out, has_holder ? std::optional(stored->renewed_at) : std::nullopt);
  AppendField(out, "polled_at");
  AppendTime(out, stored ? stored->polled_at : std::nullopt);
  out += '}';
}

void AppendInstance(std::string& out, const app::InstanceStatus& instance) {
  const core::InstanceSeen& seen = instance.seen;
  out += '{';
  AppendField(out, "id");
  core::AppendJsonString(out, seen.id);
  AppendField(out, "host");
  core::AppendJsonString(out, seen.host);
  AppendField(out, "pid");
  out += std::to_string(seen.pid);
  AppendField(out, "version");
  core::AppendJsonString(out, seen.version);
  AppendField(out, "started_at");
  AppendTime(out, seen.started_at);
  AppendField(out, "last_seen_at");
  AppendTime(out, seen.last_seen_at);
  AppendField(out, "live");
  out += instance.live ? "true" : "false";
  out += '}';
}

// "12s" ahead or "-3s" past, for a person reading expiry times against now.
std::string FromNow(core::WallTime t, core::WallTime now) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(t - now).count();
  return std::to_string(seconds) + "s";
}

}  // namespace

std::string ClusterStatusJson(const app::ClusterStatus& status) {
  std::string out = "{";
  AppendField(out, "now");
  AppendTime(out, status.now);
  AppendField(out, "instance");
  if (status.instance.empty()) {
    out += "null";
  } else {
    core::AppendJsonString(out, status.instance);
  }
  AppendField(out, "poll_groups");
  out += '[';
  for (size_t i = 0; i < status.poll_groups.size(); ++i) {
    if (i > 0) out += ',';
    AppendGroup(out, status.poll_groups[i], status.now);
  }
  out += ']';
  AppendField(out, "instances");
  out += '[';
  for (size_t i = 0; i < status.instances.size(); ++i) {
    if (i > 0) out += ',';
    AppendInstance(out, status.instances[i]);
  }
  out += "]}";
  return out;
}

void PrintClusterStatus(std::FILE* out, const app::ClusterStatus& status) {
  std::vector<std::vector<std::string>> groups{
      {"LEASE", "CONDITIONS", "HOLDER", "TOKEN", "EXPIRES", "POLLED"}};
  for (const app::PollGroupStatus& group : status.poll_groups) {
    std::string conditions;
    for (const std::string& c : group.conditions) conditions += (conditions.empty() ? "" : ",") + c;
    const auto& stored = group.stored;
    std::string holder = "(nobody)";
    if (group.held) {
      holder = stored->holder;
    } else if (stored && !stored->holder.empty()) {
      holder = stored->holder + " (expired)";
    }
    groups.push_back({group.lease, conditions.empty() ? "-" : conditions, holder,
                      std::to_string(stored ? stored->token : 0),
                      stored ? FromNow(stored->expires_at, status.now) : "-",
                      TimeText(stored ? stored->polled_at : std::nullopt)});
  }
  PrintTable(out, groups);
  std::fputc('\n', out);
  std::vector<std::vector<std::string>> instances{
      {"INSTANCE", "HOST", "PID", "VERSION", "STARTED", "LAST SEEN", "LIVE"}};
  for (const app::InstanceStatus& instance : status.instances) {
    const core::InstanceSeen& seen = instance.seen;
    instances.push_back({seen.id, seen.host, std::to_string(seen.pid), seen.version,
                         TimeText(seen.started_at), TimeText(seen.last_seen_at),
                         instance.live ? "yes" : "no"});
  }
  PrintTable(out, instances);
}

}  // namespace quell::text_output
