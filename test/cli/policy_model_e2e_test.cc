// The model-based test of the notification policy: random traces (policy_trace.h), each run
// through `quell replay --messages` and again through a replay that keeps its SQLite store,
// must produce exactly the messages the reference model (policy_model.h) predicts; and every
// group message's members and counts must agree with what that store holds. A failure prints
// the seed, the config and the shortest trace found that still diverges.
//
// QUELL_MODEL_FIRST_SEED and QUELL_MODEL_SEEDS choose the traces (scripts/model-test runs many).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "policy_model.h"
#include "policy_trace.h"
#include "run_process.h"
#include "test_paths.h"

namespace {

using nlohmann::json;
using quell::testing::ProcessResult;
using quell::testing::RunProcess;
namespace policy = quell::testing::policy;

// Traces in the test command: about 6 s on two busy cores (scripts/model-test runs more).
constexpr uint64_t kDefaultSeeds = 40;
// quell runs the search for a shorter diverging trace may spend.
constexpr int kShrinkBudget = 400;

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::stoull(value) : fallback;
}

class PolicyModelE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "quell-model-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // What the model predicts, sorted; nullopt when it refuses a line (a shrunk trace can
  // leave an ack of a key that is no longer open).
  std::optional<std::vector<policy::Message>> Expected(const policy::Trace& trace) const {
    policy::PolicyModel model(trace.config);
    for (const policy::TraceLine& line : trace.lines) {
      if (!model.Feed(line)) return std::nullopt;
    }
    model.Finish(trace.until);
    std::vector<policy::Message> messages = model.messages();
    std::sort(messages.begin(), messages.end());
    return messages;
  }

  // Runs the replay; `store` names a SQLite file for it to keep, or is empty.
  ProcessResult Replay(const policy::Trace& trace, const std::string& store = "") {
    const std::string config = dir_ + "/quell.yaml";
    std::ofstream(config, std::ios::trunc) << trace.config.Yaml();
    std::vector<std::string> argv = {
        quell::testing::QuellBinary(), "replay", "-c", config, "--messages", "--until",
        policy::FormatAt(trace.until)};
    if (!store.empty()) {
      argv.push_back("--store");
      argv.push_back("sqlite:" + store);
    }
    ++quell_runs_;
    return RunProcess(argv, trace.Jsonl());
  }

  // The replay's lines as the model's messages, sorted; an error names the line that is not.
  static std::optional<std::vector<policy::Message>> Parse(const std::string& out,
                                                           std::string& error) {
    std::vector<policy::Message> messages;
    std::istringstream in(out);
    for (std::string text; std::getline(in, text);) {
      const json line = json::parse(text, nullptr, false);
      const auto at = line.is_object() && line["at"].is_string()
                          ? policy::ParseAt(line["at"].get<std::string>())
                          : std::nullopt;
      if (!at || !line["channel"].is_string() || !line["members"].is_array()) {
        error = "not a message line: " + text;
        return std::nullopt;
      }
      policy::Message message{*at, line["channel"].get<std::string>(), "", {}, std::nullopt};
      for (const json& member : line["members"]) {
        message.members.push_back(
            {member["key"].get<std::string>(), member["transition"].get<std::string>()});
      }
      std::sort(message.members.begin(), message.members.end());
      if (line.contains("group_key")) {
        message.group_key = line["group_key"].get<std::string>();
        message.open_after = line.value("open_after", -1);
        // The counts cover every member the line lists.
        const json& counts = line["counts"];
        std::map<std::string, int> by;
        for (const policy::Member& member : message.members) ++by[member.transition];
        if (counts["members"] != message.members.size() || counts["open"] != by["open"] ||
            counts["renotify"] != by["renotify"] || counts["resolve"] != by["resolve"]) {
          error = "counts disagree with the members listed: " + text;
          return std::nullopt;
        }
      }
      messages.push_back(std::move(message));
    }
    std::sort(messages.begin(), messages.end());
    return messages;
  }

  // Empty when quell agrees with the model; otherwise what differs.
  std::string Divergence(const policy::Trace& trace, const std::vector<policy::Message>& expected,
                         const ProcessResult& run) {
    if (run.exit_code != 0) {
      return "quell replay exited " + std::to_string(run.exit_code) + ": " + run.err;
    }
    std::string error;
    auto actual = Parse(run.out, error);
    if (!actual) return error;
    if (*actual == expected) return "";
    std::vector<policy::Message> missing;
    std::vector<policy::Message> extra;
    std::set_difference(expected.begin(), expected.end(), actual->begin(), actual->end(),
                        std::back_inserter(missing));
    std::set_difference(actual->begin(), actual->end(), expected.begin(), expected.end(),
                        std::back_inserter(extra));
    std::string out;
    for (const policy::Message& m : missing) out += "  model only: " + m.Describe() + "\n";
    for (const policy::Message& m : extra) out += "  quell only: " + m.Describe() + "\n";
    (void)trace;
    return out;
  }

  // Searches for a shorter trace that still diverges: drops runs of lines, then single lines,
  // keeping each cut that leaves a valid trace (the model accepts it) quell still disagrees on.
  policy::Trace Shrink(policy::Trace trace) {
    const auto diverges = [&](const policy::Trace& candidate) {
      const auto expected = Expected(candidate);
      if (!expected || quell_runs_ >= shrink_limit_) return false;
      return !Divergence(candidate, *expected, Replay(candidate)).empty();
    };
    shrink_limit_ = quell_runs_ + kShrinkBudget;
    for (size_t chunk = std::max<size_t>(trace.lines.size() / 2, 1); chunk >= 1; chunk /= 2) {
      bool cut = true;
      while (cut && quell_runs_ < shrink_limit_) {
        cut = false;
        for (size_t start = 0; start < trace.lines.size();) {
          policy::Trace candidate = trace;
          const size_t end = std::min(start + chunk, candidate.lines.size());
          candidate.lines.erase(candidate.lines.begin() + static_cast<std::ptrdiff_t>(start),
                                candidate.lines.begin() + static_cast<std::ptrdiff_t>(end));
          if (!candidate.lines.empty() && diverges(candidate)) {
            trace = std::move(candidate);
            cut = true;
          } else {
            start += chunk;
          }
        }
      }
      if (chunk == 1) break;
    }
    return trace;
  }

  std::string Report(const policy::Trace& trace, const std::string& divergence) {
    std::ostringstream out;
    out << "seed " << trace.seed << " diverges\n"
        << "config: " << trace.config.Describe() << "\n"
        << divergence;
    const policy::Trace shortest = Shrink(trace);
    const auto expected = Expected(shortest);
    out << "shortest diverging trace found (" << shortest.lines.size() << " of "
        << trace.lines.size() << " lines; replay with --until " << policy::FormatAt(shortest.until)
        << "):\n"
        << shortest.Jsonl() << "its divergence:\n"
        << (expected ? Divergence(shortest, *expected, Replay(shortest)) : "") << "the config:\n"
        << trace.config.Yaml();
    return out.str();
  }

  std::string dir_;
  int quell_runs_ = 0;
  int shrink_limit_ = 0;
};

// Reads the store a replay kept: each message's row, its members, and what was open when.
class StoreReader {
 public:
  explicit StoreReader(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      error_ = "cannot open " + path;
    }
  }
  ~StoreReader() { sqlite3_close(db_); }
  StoreReader(const StoreReader&) = delete;
  StoreReader& operator=(const StoreReader&) = delete;
  const std::string& error() const { return error_; }

  // Each row of `sql` (with `text` bound to ?1 when given) as strings.
  std::vector<std::vector<std::string>> Rows(const std::string& sql, const std::string& text = "") {
    std::vector<std::vector<std::string>> rows;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      error_ = sqlite3_errmsg(db_);
      return rows;
    }
    if (sql.find("?1") != std::string::npos) {
      sqlite3_bind_text(stmt, 1, text.c_str(), -1, SQLITE_TRANSIENT);
    }
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const unsigned char* value = sqlite3_column_text(stmt, i);
        row.emplace_back(value != nullptr ? reinterpret_cast<const char*>(value) : "");
      }
      rows.push_back(std::move(row));
    }
    sqlite3_finalize(stmt);
    return rows;
  }

 private:
  sqlite3* db_ = nullptr;
  std::string error_;
};

constexpr int64_t kBaseMicros = 1796115600LL * 1000000;

// Whether `key` was open just before `at` (what a message sent then could read), from the
// decision log: an open decision not yet followed by a resolve.
bool OpenBefore(StoreReader& store, const std::string& key, policy::Seconds at) {
  const int64_t micros = kBaseMicros + at * 1000000;
  const auto rows = store.Rows(
      "SELECT decision, reason FROM decisions WHERE key = ?1 AND at < " + std::to_string(micros) +
          " AND ((decision = 'notify' AND reason = 'open') OR decision = 'resolve')"
          " ORDER BY at DESC, version DESC LIMIT 1",
      key);
  return !rows.empty() && rows[0][0] == "notify";
}

// Empty when every message line agrees with the store the replay kept.
std::string StoreDisagreement(const std::string& path, const std::string& out) {
  StoreReader store(path);
  if (!store.error().empty()) return store.error();
  std::string problems;
  // Per (channel, group key): each key's latest transition in the messages so far.
  std::map<std::string, std::map<std::string, std::string>> latest;
  std::istringstream in(out);
  for (std::string text; std::getline(in, text);) {
    const json line = json::parse(text);
    const std::string id = line["idempotency_key"];
    const auto row = store.Rows(
        "SELECT status, key, transition, next_attempt_at FROM outbox WHERE idempotency_key = ?1",
        id);
    if (row.size() != 1 || row[0][0] != "sent") {
      problems += "  no sent outbox row " + id + " for: " + text + "\n";
      continue;
    }
    if (!line.contains("group_key")) {
      if (row[0][1] != line["key"] || row[0][2] != line["transition"]) {
        problems += "  row " + id + " is " + row[0][2] + " " + row[0][1] + ": " + text + "\n";
      }
      continue;
    }
    // A group message: its members are the rows marked with it.
    std::vector<policy::Member> stored;
    const policy::Seconds at = *policy::ParseAt(line["at"]);
    const std::string at_micros = std::to_string(kBaseMicros + at * 1000000);
    // A message at the instant of a poll or an action went before it, unless it carries a
    // member that instant wrote: then after it, and that instant's decisions count.
    bool after_instant = false;
    for (const auto& member :
         store.Rows("SELECT key, transition, created_at FROM outbox WHERE group_row = ?1 AND"
                    " status = 'grouped' ORDER BY created_at, key",
                    id)) {
      stored.push_back({member[0], member[1]});
      after_instant = after_instant || member[2] == at_micros;
    }
    std::vector<policy::Member> listed;
    for (const json& member : line["members"]) {
      listed.push_back({member["key"].get<std::string>(), member["transition"].get<std::string>()});
    }
    std::vector<policy::Member> sorted_stored = stored;
    std::sort(sorted_stored.begin(), sorted_stored.end());
    std::sort(listed.begin(), listed.end());
    if (sorted_stored != listed) problems += "  members differ from the store's: " + text + "\n";
    if (line["counts"]["members"] != stored.size()) {
      problems += "  counts.members is not the store's " + std::to_string(stored.size()) + ": " +
                  text + "\n";
    }
    // open_after: the group's keys still open when it was sent, silenced or not.
    auto& group =
        latest[line["channel"].get<std::string>() + " " + line["group_key"].get<std::string>()];
    for (const policy::Member& member : stored) group[member.key] = member.transition;
    int open = 0;
    for (const auto& [key, transition] : group) {
      if (OpenBefore(store, key, after_instant ? at + 1 : at)) ++open;
    }
    if (line.value("open_after", -1) != open) {
      problems += "  open_after is not the store's " + std::to_string(open) + ": " + text + "\n";
    }
  }
  if (!store.error().empty()) problems += "  store: " + store.error() + "\n";
  return problems;
}

TEST_F(PolicyModelE2eTest, ReplayAndAKeptStoreAgreeWithTheModel) {
  const uint64_t first = EnvNumber("QUELL_MODEL_FIRST_SEED", 1);
  const uint64_t count = EnvNumber("QUELL_MODEL_SEEDS", kDefaultSeeds);
  uint64_t messages = 0;
  uint64_t groups = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    const policy::Trace trace = policy::GenerateTrace(seed);
    const auto expected = Expected(trace);
    ASSERT_TRUE(expected) << "seed " << seed << ": the generator made a line the model refuses";
    const ProcessResult replayed = Replay(trace);
    if (const std::string divergence = Divergence(trace, *expected, replayed);
        !divergence.empty()) {
      ADD_FAILURE() << Report(trace, divergence);
      return;  // one report is enough to act on; more would repeat it
    }
    // The same trace with a store kept: the same lines, and a store that backs them.
    const std::string store = dir_ + "/store-" + std::to_string(seed) + ".db";
    const ProcessResult kept = Replay(trace, store);
    ASSERT_EQ(kept.exit_code, 0) << "seed " << seed << ": " << kept.err;
    ASSERT_EQ(kept.out, replayed.out) << "seed " << seed << ": a kept store changed the messages";
    const std::string disagreement = StoreDisagreement(store, kept.out);
    ASSERT_EQ(disagreement, "") << "seed " << seed << " (" << trace.config.Describe() << "):\n"
                                << trace.Jsonl();
    std::filesystem::remove(store);
    messages += expected->size();
    groups += static_cast<uint64_t>(
        std::count_if(expected->begin(), expected->end(),
                      [](const policy::Message& m) { return !m.group_key.empty(); }));
  }
  // The traces exercise what they are for: without messages they would prove nothing.
  EXPECT_GT(messages, count);
  EXPECT_GT(groups, 0u);
  std::printf("%llu traces from seed %llu: %llu messages, %llu of them group messages\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(messages), static_cast<unsigned long long>(groups));
}

// A kept store is new: a replay on top of other history would run its clock backwards.
TEST_F(PolicyModelE2eTest, ReplayRefusesToKeepAStoreThatExists) {
  const policy::Trace trace = policy::GenerateTrace(1);
  const std::string store = dir_ + "/kept.db";
  ASSERT_EQ(Replay(trace, store).exit_code, 0);
  const ProcessResult again = Replay(trace, store);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
  EXPECT_EQ(again.out, "");
  const ProcessResult postgres =
      RunProcess({quell::testing::QuellBinary(), "replay", "-c", dir_ + "/quell.yaml", "--messages",
                  "--store", "postgresql://localhost/x"},
                 trace.Jsonl());
  EXPECT_EQ(postgres.exit_code, 2);
  EXPECT_NE(postgres.err.find("wants sqlite:PATH"), std::string::npos) << postgres.err;
}

}  // namespace
