#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace quell::app {

// Label (name, value) pairs of one series; the order given does not matter.
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

// A small registry of counters, gauges and fixed-bucket histograms, rendered in the Prometheus
// text exposition format 0.0.4. Debian 12 does package a client (prometheus-cpp-dev), but this
// registry sits in app/, where only the standard library may be included, and the run loop
// records into it directly; an adapter over prometheus-cpp behind this interface would be the
// way to adopt it. It does only what quell's own metrics need. Thread-safe: every call takes
// one mutex.
class MetricsRegistry {
 public:
  class Family;

  // Handles to a family; cheap to copy, valid as long as the registry.
  class Counter {
   public:
    // Adds `delta` (>= 0; a negative delta is ignored, counters never go down).
    void Add(const MetricLabels& labels = {}, double delta = 1) const;
    double Value(const MetricLabels& labels = {}) const;

   private:
    friend class MetricsRegistry;
    Counter(MetricsRegistry* registry, Family* family) : registry_(registry), family_(family) {}
    MetricsRegistry* registry_;
    Family* family_;
  };

  class Gauge {
   public:
    void Set(const MetricLabels& labels, double value) const;
    void Set(double value) const { Set({}, value); }
    double Value(const MetricLabels& labels = {}) const;

   private:
    friend class MetricsRegistry;
    Gauge(MetricsRegistry* registry, Family* family) : registry_(registry), family_(family) {}
    MetricsRegistry* registry_;
    Family* family_;
  };

  class Histogram {
   public:
    void Observe(const MetricLabels& labels, double value) const;
    void Observe(double value) const { Observe({}, value); }
    // Observations so far (the _count sample).
    uint64_t Count(const MetricLabels& labels = {}) const;

   private:
    friend class MetricsRegistry;
    Histogram(MetricsRegistry* registry, Family* family) : registry_(registry), family_(family) {}
    MetricsRegistry* registry_;
    Family* family_;
  };

  MetricsRegistry();
  ~MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Declares a family, or returns the one declared before under `name`. `name` must be a valid
  // metric name and not declared with another type (a programming error: it throws
  // std::logic_error at start-up, never while serving).
  Counter AddCounter(const std::string& name, const std::string& help);
  Gauge AddGauge(const std::string& name, const std::string& help);
  // `upper_bounds` ascending, without +Inf (always added).
  Histogram AddHistogram(const std::string& name, const std::string& help,
                         std::vector<double> upper_bounds);

  // Every family in name order, its series in label order: # HELP, # TYPE, then samples.
  std::string Render() const;

 private:
  Family& Declare(const std::string& name, const std::string& help, int type,
                  std::vector<double> upper_bounds);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Family>> families_;  // guarded by mu_
};

// Appends `value` as a Prometheus sample value: shortest round-trip form, +Inf, -Inf, NaN.
void AppendMetricValue(std::string& out, double value);

}  // namespace quell::app
