#include "datadog_server.h"

#include <httplib.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

namespace quell::testing {
namespace {

using nlohmann::json;

// Datadog's precedence for a monitor's overall state from its groups' states.
int Severity(const std::string& status) {
  if (status == "Alert") return 4;
  if (status == "Warn") return 3;
  if (status == "No Data") return 2;
  if (status == "OK") return 1;
  return 0;
}

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

}  // namespace

DatadogServer::DatadogServer(std::string api_key, std::string app_key)
    : api_key_(std::move(api_key)), app_key_(std::move(app_key)) {
  http_ = std::make_unique<httplib::Server>();
  http_->Get("/api/v1/monitor", [this](const httplib::Request& req, httplib::Response& res) {
    Fault fault{0, ""};
    {
      const std::lock_guard<std::mutex> lock(mu_);
      std::string target = req.path;
      std::string sep = "?";
      for (const auto& [name, value] : req.params) {
        target += sep + name + "=" + value;
        sep = "&";
      }
      targets_.push_back(std::move(target));
      for (const auto& [name, value] : req.headers) headers_.push_back(value);
      if (!faults_.empty()) {
        fault = faults_.front();
        faults_.erase(faults_.begin());
      }
    }
    if (req.get_header_value("DD-API-KEY") != api_key_ ||
        req.get_header_value("DD-APPLICATION-KEY") != app_key_) {
      res.status = 403;
      res.set_content(R"({"errors":["Forbidden"]})", "application/json");
      return;
    }
    if (fault.status == 429) {
      res.status = 429;
      res.set_header("X-RateLimit-Limit", "1000");
      res.set_header("X-RateLimit-Period", "10");
      res.set_header("X-RateLimit-Remaining", "0");
      res.set_header("X-RateLimit-Reset", fault.reset);
      res.set_header("X-RateLimit-Name", "monitor_list");
      res.set_content(R"({"errors":["Rate limit of 1000 requests in 10 seconds reached."]})",
                      "application/json");
      return;
    }
    if (fault.status != 0) {
      res.status = fault.status;
      res.set_content(R"({"errors":["Internal Server Error"]})", "application/json");
      return;
    }
    // Without page, every monitor in one answer; with it, page_size (default 100, at most 1000).
    long page = -1;
    long page_size = 100;
    if (req.has_param("page")) page = std::strtol(req.get_param_value("page").c_str(), nullptr, 10);
    if (req.has_param("page_size")) {
      page_size =
          std::clamp(std::strtol(req.get_param_value("page_size").c_str(), nullptr, 10), 1L, 1000L);
    }
    res.set_content(
        Answer(req.get_param_value("monitor_tags"), req.has_param("group_states"), page, page_size),
        "application/json");
  });
  port_ = http_->bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  while (!http_->is_running()) std::this_thread::yield();
}

DatadogServer::~DatadogServer() {
  http_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string DatadogServer::BaseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }

void DatadogServer::SetMonitor(int64_t id, const std::string& name,
                               const std::vector<std::string>& tags) {
  const std::lock_guard<std::mutex> lock(mu_);
  Monitor& monitor = monitors_[id];
  monitor.name = name;
  monitor.tags = tags;
}

void DatadogServer::SetGroup(int64_t id, const std::string& group, const std::string& status) {
  const std::lock_guard<std::mutex> lock(mu_);
  monitors_[id].groups[group] = status;
}

void DatadogServer::FailNext(int status, size_t count, std::string reset) {
  const std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < count; ++i) faults_.push_back(Fault{status, reset});
}

void DatadogServer::RenameGroupStatus(bool on) {
  const std::lock_guard<std::mutex> lock(mu_);
  rename_status_ = on;
}

std::vector<std::string> DatadogServer::Targets() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return targets_;
}

std::vector<std::string> DatadogServer::HeaderValues() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return headers_;
}

std::string DatadogServer::Answer(const std::string& monitor_tags, bool with_groups, long page,
                                  long page_size) const {
  const std::lock_guard<std::mutex> lock(mu_);
  const std::vector<std::string> wanted = SplitComma(monitor_tags);
  json monitors = json::array();
  for (const auto& [id, monitor] : monitors_) {
    const bool selected = std::all_of(wanted.begin(), wanted.end(), [&](const std::string& tag) {
      return std::find(monitor.tags.begin(), monitor.tags.end(), tag) != monitor.tags.end();
    });
    if (!selected) continue;
    std::string overall = "OK";
    json groups = json::object();
    for (const auto& [name, status] : monitor.groups) {
      if (Severity(status) > Severity(overall)) overall = status;
      json group = {{"name", name},
                    {"last_triggered_ts", status == "Alert" || status == "Warn" ? 1764662400 : 0},
                    {"last_notified_ts", 0},
                    {"last_resolved_ts", 0},
                    {"last_nodata_ts", 0}};
      group[rename_status_ ? "state" : "status"] = status;
      groups[name] = std::move(group);
    }
    json state = json::object();
    if (with_groups) state["groups"] = std::move(groups);
    monitors.push_back({{"id", id},
                        {"name", monitor.name},
                        {"message", "Notify @webhook-quell"},
                        {"overall_state", overall},
                        {"tags", monitor.tags},
                        {"type", "metric alert"},
                        {"query", "avg(last_5m):avg:trace.http.request.errors{*} by {host} > 5"},
                        {"state", std::move(state)}});
  }
  if (page >= 0) {
    const auto from = std::min<size_t>(monitors.size(), static_cast<size_t>(page * page_size));
    const auto to = std::min<size_t>(monitors.size(), from + static_cast<size_t>(page_size));
    json slice = json::array();
    for (size_t i = from; i < to; ++i) slice.push_back(monitors[i]);
    monitors = std::move(slice);
  }
  return monitors.dump();
}

}  // namespace quell::testing
