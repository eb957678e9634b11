#include "quell/app/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace quell::app {
namespace {

enum Type : int { kCounter, kGauge, kHistogram };

struct Series {
  double value = 0;              // counter, gauge
  std::vector<uint64_t> counts;  // histogram: per bucket, not cumulative; the last is +Inf
  double sum = 0;
  uint64_t count = 0;
};

MetricLabels Sorted(MetricLabels labels) {
  std::sort(labels.begin(), labels.end());
  return labels;
}

bool IsMetricName(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// HELP text escapes backslash and newline; label values also the double quote.
void AppendEscaped(std::string& out, const std::string& text, bool quote) {
  for (char c : text) {
    if (c == '\\') {
      out.append("\\\\");
    } else if (c == '\n') {
      out.append("\\n");
    } else if (quote && c == '"') {
      out.append("\\\"");
    } else {
      out.push_back(c);
    }
  }
}

void AppendLabels(std::string& out, const MetricLabels& labels, const char* le = nullptr) {
  if (labels.empty() && le == nullptr) return;
  out.push_back('{');
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) out.push_back(',');
    first = false;
    out.append(name).append("=\"");
    AppendEscaped(out, value, true);
    out.push_back('"');
  }
  if (le != nullptr) {
    if (!first) out.push_back(',');
    out.append("le=\"").append(le).push_back('"');
  }
  out.push_back('}');
}

void AppendSample(std::string& out, const std::string& name, const char* suffix,
                  const MetricLabels& labels, double value, const char* le = nullptr) {
  out.append(name).append(suffix);
  AppendLabels(out, labels, le);
  out.push_back(' ');
  AppendMetricValue(out, value);
  out.push_back('\n');
}

}  // namespace

class MetricsRegistry::Family {
 public:
  std::string help;
  int type = kCounter;
  std::vector<double> upper_bounds;
  std::map<MetricLabels, Series> series;

  // `sorted` as Sorted returns it.
  Series& At(MetricLabels sorted) {
    auto it = series.find(sorted);
    if (it == series.end()) it = series.emplace(std::move(sorted), Series{}).first;
    if (type == kHistogram && it->second.counts.empty()) {
      it->second.counts.assign(upper_bounds.size() + 1, 0);
    }
    return it->second;
  }
  const Series* Find(const MetricLabels& labels) const {
    auto it = series.find(Sorted(labels));
    return it == series.end() ? nullptr : &it->second;
  }
};

void AppendMetricValue(std::string& out, double value) {
  if (std::isnan(value)) {
    out.append("NaN");
  } else if (std::isinf(value)) {
    out.append(value > 0 ? "+Inf" : "-Inf");
  } else {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, end);
  }
}

MetricsRegistry::MetricsRegistry() = default;
MetricsRegistry::~MetricsRegistry() = default;

MetricsRegistry::Family& MetricsRegistry::Declare(const std::string& name, const std::string& help,
                                                  int type, std::vector<double> upper_bounds) {
  if (!IsMetricName(name)) throw std::logic_error("invalid metric name: " + name);
  const std::lock_guard lock(mu_);
  auto& slot = families_[name];
  if (slot) {
    if (slot->type != type) throw std::logic_error("metric declared twice: " + name);
    return *slot;
  }
  slot = std::make_unique<Family>();
  slot->help = help;
  slot->type = type;
  std::sort(upper_bounds.begin(), upper_bounds.end());
  std::erase_if(upper_bounds, [](double b) { return std::isinf(b) || std::isnan(b); });
  upper_bounds.erase(std::unique(upper_bounds.begin(), upper_bounds.end()), upper_bounds.end());
  slot->upper_bounds = std::move(upper_bounds);
  return *slot;
}

MetricsRegistry::Counter MetricsRegistry::AddCounter(const std::string& name,
                                                     const std::string& help) {
  return Counter(this, &Declare(name, help, kCounter, {}));
}
MetricsRegistry::Gauge MetricsRegistry::AddGauge(const std::string& name, const std::string& help) {
  return Gauge(this, &Declare(name, help, kGauge, {}));
}
MetricsRegistry::Histogram MetricsRegistry::AddHistogram(const std::string& name,
                                                         const std::string& help,
                                                         std::vector<double> upper_bounds) {
  return Histogram(this, &Declare(name, help, kHistogram, std::move(upper_bounds)));
}

void MetricsRegistry::Counter::Add(const MetricLabels& labels, double delta) const {
  if (!(delta >= 0)) return;
  const std::lock_guard lock(registry_->mu_);
  family_->At(Sorted(labels)).value += delta;
}
double MetricsRegistry::Counter::Value(const MetricLabels& labels) const {
  const std::lock_guard lock(registry_->mu_);
  const Series* s = family_->Find(labels);
  return s == nullptr ? 0 : s->value;
}

void MetricsRegistry::Gauge::Set(const MetricLabels& labels, double value) const {
  const std::lock_guard lock(registry_->mu_);
  family_->At(Sorted(labels)).value = value;
}
double MetricsRegistry::Gauge::Value(const MetricLabels& labels) const {
  const std::lock_guard lock(registry_->mu_);
  const Series* s = family_->Find(labels);
  return s == nullptr ? 0 : s->value;
}

void MetricsRegistry::Histogram::Observe(const MetricLabels& labels, double value) const {
  const std::lock_guard lock(registry_->mu_);
  Series& s = family_->At(Sorted(labels));
  const auto& bounds = family_->upper_bounds;
  // le is inclusive: a value equal to a bound counts in that bucket.
  const auto bucket = std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin();
  ++s.counts[static_cast<size_t>(bucket)];
  s.sum += value;
  ++s.count;
}
uint64_t MetricsRegistry::Histogram::Count(const MetricLabels& labels) const {
  const std::lock_guard lock(registry_->mu_);
  const Series* s = family_->Find(labels);
  return s == nullptr ? 0 : s->count;
}

std::string MetricsRegistry::Render() const {
  static constexpr const char* kTypeNames[] = {"counter", "gauge", "histogram"};
  std::string out;
  const std::lock_guard lock(mu_);
  for (const auto& [name, family] : families_) {
    out.append("# HELP ").append(name).push_back(' ');
    AppendEscaped(out, family->help, false);
    out.append("\n# TYPE ").append(name).push_back(' ');
    out.append(kTypeNames[family->type]).push_back('\n');
    for (const auto& [labels, s] : family->series) {
      if (family->type != kHistogram) {
        AppendSample(out, name, "", labels, s.value);
        continue;
      }
      uint64_t cumulative = 0;
      std::string le;
      for (size_t i = 0; i < s.counts.size(); ++i) {
        cumulative += s.counts[i];
        le.clear();
        if (i < family->upper_bounds.size()) {
          AppendMetricValue(le, family->upper_bounds[i]);
        } else {
          le = "+Inf";
        }
        AppendSample(out, name, "_bucket", labels, static_cast<double>(cumulative), le.c_str());
      }
      AppendSample(out, name, "_sum", labels, s.sum);
      AppendSample(out, name, "_count", labels, static_cast<double>(s.count));
    }
  }
  return out;
}

}  // namespace quell::app
