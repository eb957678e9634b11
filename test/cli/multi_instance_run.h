#pragma once

// One run of the multi-instance scenario: quell-sim with a scripted outage, the chaos
// receiver, N `quell run` processes on a fresh PostgreSQL schema and, for the fleet run, a
// seeded loop of kill -9 and SIGSTOP/SIGCONT. What it returns is what the test compares.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "multi_instance_receiver.h"

namespace quell::testing {

struct RunSpec {
  std::string label;  // "single" or "fleet": names the schema and the log files
  int instances = 1;
  bool chaos = false;
  uint64_t seed = 1;
  int cycles = 1;  // repetitions of the outage script (the soak raises it)
  std::string base_url;
  std::filesystem::path dir;
};

// The durable outcome, in the shapes the test compares between runs.
struct Outcome {
  // "key" -> "generation=2 status=resolved renotifies=1" (no event count: quiet sightings make
  // it depend on when the polls land).
  std::map<std::string, std::string> incidents;
  // "key#generation" -> its decisions: counts per kind (notify and resolve by reason) for a
  // resolved generation, update_only by kind alone; the kinds alone for the generation still
  // open.
  std::map<std::string, std::string> decisions;
  // "key#generation#transition" -> outbox rows (every row must be sent).
  std::map<std::string, int> transitions;
  std::vector<std::string> unsent;  // outbox rows not sent when the run ended
  std::map<std::string, ReceivedTransition> received;
  // "key#generation" of each resolved generation -> seconds from its last failing
  // observation to its resolve.
  std::map<std::string, double> healthy_runs;
  std::vector<std::chrono::steady_clock::time_point> polls;  // the source's listing polls
  int64_t listings_logged = 0;     // GET /v1/errors/groups in quell-sim's request log
  std::vector<double> failovers;   // kill -9 of the polling instance -> the next poll, seconds
  std::vector<std::string> chaos;  // what the loop did, in order
  int hung = 0;
  int refused = 0;
  int lost_polls = 0;  // listings the source served that committed nothing
  double seconds = 0;
  std::string error;  // a setup or progress failure; the test fails on it
};

// The webhook timeout, the poll interval and lease the runs use.
inline constexpr std::chrono::seconds kInterval{1};
inline constexpr std::chrono::seconds kLease{3};
inline constexpr int kHealthyPollsToClose = 3;
inline constexpr int kCyclePolls = 18;  // committed polls per repetition of the outage script

Outcome RunScenario(const RunSpec& spec);

}  // namespace quell::testing
