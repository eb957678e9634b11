#include "metrics_exporter.h"

#include <httplib.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace quell::testing {
namespace {

// The text format's value spelling (Go's strconv): NaN, +Inf, -Inf, else the shortest
// representation that reads back as the same double.
std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return {buffer.data(), result.ptr};
}

void AppendLabelValue(std::string& out, const std::string& value) {
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

}  // namespace

MetricsExporter::MetricsExporter() = default;

MetricsExporter::~MetricsExporter() { Stop(); }

core::Result<int> MetricsExporter::Start() {
  http_ = std::make_unique<httplib::Server>();
  http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    ++scrapes_;
    response.set_content(Exposition(), "text/plain; version=0.0.4");
  });
  port_ = http_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) {
    return core::MakeError(core::ErrorCode::kUnavailable, "exporter: cannot bind 127.0.0.1");
  }
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  return port_;
}

void MetricsExporter::Stop() {
  if (http_) http_->stop();
  if (thread_.joinable()) thread_.join();
}

void MetricsExporter::SetGauge(const std::string& name, core::Labels labels, double value) {
  std::sort(labels.begin(), labels.end());
  const std::lock_guard<std::mutex> lock(mu_);
  gauges_[name][std::move(labels)] = value;
}

void MetricsExporter::RemoveGauge(const std::string& name, core::Labels labels) {
  std::sort(labels.begin(), labels.end());
  const std::lock_guard<std::mutex> lock(mu_);
  const auto it = gauges_.find(name);
  if (it == gauges_.end()) return;
  it->second.erase(labels);
  if (it->second.empty()) gauges_.erase(it);
}

std::string MetricsExporter::Exposition() const {
  const std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const auto& [name, series] : gauges_) {
    out += "# TYPE " + name + " gauge\n";
    for (const auto& [labels, value] : series) {
      out += name;
      if (!labels.empty()) {
        out += '{';
        for (size_t i = 0; i < labels.size(); ++i) {
          if (i > 0) out += ',';
          out += labels[i].first + "=\"";
          AppendLabelValue(out, labels[i].second);
          out += '"';
        }
        out += '}';
      }
      out += ' ' + FormatValue(value) + '\n';
    }
  }
  return out;
}

}  // namespace quell::testing
