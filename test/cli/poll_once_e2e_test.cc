// `quell poll-once` and `quell schema check` end to end: the quell binary as a child process,
// quell-sim in process on loopback, a real SQLite file, and a real Prometheus.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "prometheus_server.h"
#include "quell/sim/server.h"
#include "quell_run.h"
#include "run_process.h"
#include "test_paths.h"

namespace quell {
namespace {

using nlohmann::json;

constexpr const char* kKey = "ifr_pk_proj_e2e_0123456789abcdef";

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json Scenario() {
  std::ifstream in(testing::SourcePath("examples/support-scenario.json"));
  return json::parse(in);
}

class PollOnceTest : public ::testing::Test {
 protected:
  void SetUp() override {}
  void TearDown() override {
    if (sim_) sim_->Stop();
  }

  void BootSim(json scenario) {
    sim::SimOptions options;
    options.scenario = std::move(scenario);
    sim_ = std::make_unique<sim::SimServer>(std::move(options));
    auto port = sim_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    base_url_ = "http://127.0.0.1:" + std::to_string(*port);
    admin_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }

  void Fault(const json& fault) {
    auto r = admin_->Post("/_sim/faults", fault.dump(), "application/json");
    ASSERT_TRUE(r && r->status == 200);
  }

  std::string Store() const { return "sqlite:" + (dir_ / "quell.db").string(); }

  // Runs quell with the Infrai environment a user would set.
  testing::ProcessResult Quell(std::vector<std::string> args) {
    // The child inherits the environment; nothing else in this process reads it.
    setenv("INFRAI_BASE_URL", base_url_.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    setenv("INFRAI_API_KEY", kKey, 1);                // NOLINT(concurrency-mt-unsafe)
    setenv("QUELL_STORE", Store().c_str(), 1);        // NOLINT(concurrency-mt-unsafe)
    args.insert(args.begin(), testing::QuellBinary());
    auto result = testing::RunProcess(args);
    EXPECT_EQ(result.out.find(kKey), std::string::npos) << "the API key reached stdout";
    EXPECT_EQ(result.err.find(kKey), std::string::npos) << "the API key reached stderr";
    return result;
  }

  std::vector<json> Lines(const std::string& out) {
    std::vector<json> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
    return lines;
  }

  std::string WriteConfig(const std::string& text) {
    const auto path = dir_ / "quell.yaml";
    std::ofstream(path) << text;
    return path.string();
  }

  testing::ScratchDir dir_{"quell-poll"};
  std::unique_ptr<sim::SimServer> sim_;
  std::unique_ptr<httplib::Client> admin_;
  std::string base_url_;
};

TEST_F(PollOnceTest, TheExampleConfigOpensOneIncidentPerConditionAndNotifiesOnce) {
  BootSim(Scenario());
  const std::string config = testing::SourcePath("examples/quell.yaml");
  std::vector<std::map<std::string, std::string>> runs;
  for (int poll = 0; poll < 3; ++poll) {
    auto r = Quell({"poll-once", "-c", config});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::string> decided;
    for (const json& line : Lines(r.out)) decided[line["key"]] = line["decision"];
    runs.push_back(decided);
  }
  const std::string error_key = "acme:model-answer:grp_model_timeout";
  const std::string latency_key = "acme:model-answer:latency-p99";
  EXPECT_EQ(runs[0][error_key], "notify");
  EXPECT_EQ(runs[0][latency_key], "notify");
  EXPECT_EQ(runs[0]["globex:model-answer:latency-p99"], "ignore");
  EXPECT_FALSE(runs[0].contains("globex:retrieval:grp_kb_lookup"));  // resolved before poll 1
  for (size_t poll = 1; poll < 3; ++poll) {
    EXPECT_EQ(runs[poll][error_key], "update_only") << poll;
    EXPECT_EQ(runs[poll][latency_key], "update_only") << poll;
  }
  auto outbox = Quell({"outbox", "list", "--store", Store(), "--format", "jsonl"});
  ASSERT_EQ(outbox.exit_code, 0) << outbox.err;
  EXPECT_EQ(Lines(outbox.out).size(), 2U) << outbox.out;

  // The first poll enriched the new incident from the group's detail, redacted.
  auto shown = Quell({"incidents", "show", error_key, "--store", Store(), "--format", "jsonl"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("event_id"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("jane.doe@example.com"), std::string::npos) << shown.out;
}

// The issue's defect: a manual resolve of a group still failing upstream paged again within a
// second as generation 2. Now the key is held until the source is seen healthy; --upstream
// resolves the group at Infrai, and a metric condition's key refuses it.
TEST_F(PollOnceTest, AManualResolveHoldsAStillFailingGroupUntilItIsSeenHealthy) {
  BootSim(Scenario());
  const std::string config = testing::SourcePath("examples/quell.yaml");
  const std::string key = "acme:model-answer:grp_model_timeout";
  const auto poll = [&] {
    auto r = Quell({"poll-once", "-c", config});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, json> decided;
    for (const json& line : Lines(r.out)) decided[line["key"]] = line;
    return decided;
  };
  const auto opens = [&] {
    auto r = Quell({"outbox", "list", "--store", Store(), "--format", "jsonl"});
    size_t n = 0;
    for (const json& row : Lines(r.out)) n += row["key"] == key && row["transition"] == "open";
    return n;
  };
  const auto capture = [&] {
    httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kKey}};
    auto r =
        admin_->Post("/v1/errors/capture", auth,
                     R"({"message":"timed out again","fingerprint":["model-answer","Timeout"]})",
                     "application/json");
    ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "no answer");
  };

  EXPECT_EQ(poll()[key]["decision"], "notify");
  auto r = Quell({"incidents", "resolve", key, "-c", config});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("held resolved until its source is seen healthy"), std::string::npos)
      << r.out;
  for (int n = 0; n < 2; ++n) {  // still unresolved at Infrai, with new events
    capture();
    const json line = poll()[key];
    EXPECT_EQ(line["decision"], "update_only") << line;
    EXPECT_EQ(line["reason"], "manually_resolved") << line;
    EXPECT_EQ(line["generation"], 1) << line;
  }
  EXPECT_EQ(opens(), 1u) << "a held key paged";

  // The latency condition's key has no error group to resolve upstream: refused, still open.
  r = Quell({"incidents", "resolve", "acme:model-answer:latency-p99", "--upstream", "-c", config});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("cannot resolve upstream"), std::string::npos) << r.err;
  r = Quell({"incidents", "resolve", key, "--upstream"});  // no config: nothing to reach
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--upstream needs -c FILE"), std::string::npos) << r.err;

  // Fixed upstream: seen healthy once, the hold ends; the next failure pages generation 2.
  ASSERT_TRUE(admin_->Post("/v1/errors/resolve/grp_model_timeout",
                           {{"Authorization", std::string("Bearer ") + kKey}}, "{}",
                           "application/json"));
  json line = poll()[key];
  EXPECT_EQ(line["decision"], "ignore") << line;
  EXPECT_EQ(line["reason"], "hold_released") << line;
  capture();
  line = poll()[key];
  EXPECT_EQ(line["decision"], "notify") << line;
  EXPECT_EQ(line["generation"], 2) << line;
  EXPECT_EQ(opens(), 2u);

  // --upstream resolves the group at Infrai too: the next poll sees it resolved, healthy.
  r = Quell({"incidents", "resolve", key, "--upstream", "--for", "1h", "-c", config});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("resolved upstream: grp_model_timeout"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" or 20"), std::string::npos) << r.out;  // the --for bound, a time
  line = poll()[key];
  EXPECT_EQ(line["reason"], "hold_released") << line;
}

TEST_F(PollOnceTest, A429StormIsRetriedWithinTheBudgetThenReported) {
  BootSim(Scenario());
  const std::string config = WriteConfig(R"(store: ${QUELL_STORE}
infrai:
  base_url: ${INFRAI_BASE_URL}
  retry: {max_attempts: 5, initial_backoff: 10ms, max_backoff: 50ms, budget: 1500ms}
conditions:
  - {name: agent-errors, type: error_groups}
)");
  Fault({{"route", "errors.groups"}, {"kind", "429"}, {"count", 2}, {"retry_after", 0}});
  auto r = Quell({"poll-once", "-c", config});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(r.out).size(), 1U);

  Fault({{"route", "errors.groups"}, {"kind", "429"}, {"retry_after", 1}});
  r = Quell({"poll-once", "-c", config});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("HTTP 429"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("retry budget"), std::string::npos) << r.err;
  const auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0]["decision"], "unknown");  // the open incident is held, not resolved
  // And the source's first failed poll in a row, toward an incident of its own (issue 31).
  EXPECT_EQ(lines[1]["key"], "source:infrai error groups");
  EXPECT_EQ(lines[1]["reason"], "pending");
}

TEST_F(PollOnceTest, AListingThatFailsOnPageThreeGivesUnknownNotHealthy) {
  json scenario = {{"groups", json::array()}};
  for (int i = 0; i < 5; ++i) {
    scenario["groups"].push_back({{"id", "grp_" + std::to_string(i)},
                                  {"tags", {{"tenant", "acme"}, {"agent_stage", "s"}}},
                                  {"events", 1}});
  }
  BootSim(scenario);
  const std::string config = WriteConfig(R"(store: ${QUELL_STORE}
infrai:
  base_url: ${INFRAI_BASE_URL}
  page_size: 2
  retry: {max_attempts: 1}
defaults: {healthy_polls_to_close: 1}
conditions:
  - {name: agent-errors, type: error_groups}
)");
  auto r = Quell({"poll-once", "-c", config});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Lines(r.out).size(), 5U);

  // Every group resolves, but page 3 fails: nothing may resolve on a partial listing.
  for (int i = 0; i < 5; ++i) {
    admin_->Post("/_sim/groups/grp_" + std::to_string(i) + "/resolve", "{}", "application/json");
  }
  Fault({{"route", "errors.groups"}, {"kind", "page_fail"}, {"status", 503}, {"page", 3}});
  r = Quell({"poll-once", "-c", config});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("page 3"), std::string::npos) << r.err;
  for (const json& line : Lines(r.out)) {
    // The source's own incident counts the failed poll (issue 31); every group's is held.
    const bool source = line["key"] == "source:infrai error groups";
    EXPECT_EQ(line["decision"], source ? "update_only" : "unknown") << line.dump();
  }
  EXPECT_EQ(Lines(r.out).size(), 6U);
}

TEST_F(PollOnceTest, RenamedFieldsFailLoudly) {
  BootSim(Scenario());
  Fault({{"route", "errors.groups"}, {"kind", "rename"}, {"renames", {{"error_group_id", "gid"}}}});
  auto r = Quell({"poll-once", "-c", testing::SourcePath("examples/quell.yaml")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no group id"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("infrai.fields.id"), std::string::npos) << r.err;
}

// The issue's schema drift: with `level` or `tags` renamed upstream, three polls resolved every
// open incident, or re-opened each group under no-tenant:no-stage. Now the poll fails naming
// the field and the alias map, and open incidents are held: not one open or resolve.
class SchemaDriftTest : public PollOnceTest,
                        public ::testing::WithParamInterface<std::pair<std::string, std::string>> {
};

constexpr const char* kSourceKey = "source:infrai error groups";

TEST_P(SchemaDriftTest, ARenamedFieldFailsThePollWithoutOneFalseOpenOrResolve) {
  const auto& [field, renamed] = GetParam();
  json groups = json::array();
  for (const char* tenant : {"acme", "globex", "initech"}) {
    groups.push_back({{"id", std::string("grp_") + tenant},
                      {"title", "Tool call failed"},
                      {"level", "error"},
                      {"tags", {{"tenant", tenant}, {"agent_stage", "tools"}}}});
  }
  BootSim({{"groups", groups}});
  const std::string config = testing::SourcePath("examples/quell.yaml");
  auto r = Quell({"poll-once", "-c", config});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Lines(r.out).size(), 3U) << r.out;

  Fault({{"route", "errors.groups"}, {"kind", "rename"}, {"renames", {{field, renamed}}}});
  for (int poll = 0; poll < 3; ++poll) {
    r = Quell({"poll-once", "-c", config});
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.err.find("field \"" + field + "\" is missing from 3 of 3 groups"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("infrai.fields." + field), std::string::npos) << r.err;
    for (const json& line : Lines(r.out)) {
      if (line["key"] == kSourceKey) continue;  // the source's own incident, below
      EXPECT_EQ(line["decision"], "unknown") << line.dump();
    }
  }
  // The three opens, nothing since of theirs; and at the third failed poll in a row the source
  // speaks for itself (issue 31): quell is blind to it until the field is mapped.
  auto outbox = Quell({"outbox", "list", "--store", Store(), "--format", "jsonl"});
  ASSERT_EQ(outbox.exit_code, 0) << outbox.err;
  const auto rows = Lines(outbox.out);
  ASSERT_EQ(rows.size(), 4U) << outbox.out;
  EXPECT_EQ(std::count_if(rows.begin(), rows.end(),
                          [](const json& row) {
                            return row["key"] == kSourceKey && row["transition"] == "open";
                          }),
            1)
      << outbox.out;
  auto open = Quell({"incidents", "list", "--store", Store(), "--format", "jsonl"});
  ASSERT_EQ(open.exit_code, 0) << open.err;
  std::set<std::string> keys;
  for (const json& line : Lines(open.out)) {
    EXPECT_EQ(line["status"], "open") << line.dump();
    keys.insert(line["key"].get<std::string>());
  }
  EXPECT_EQ(keys, (std::set<std::string>{"acme:tools:grp_acme", "globex:tools:grp_globex",
                                         "initech:tools:grp_initech", kSourceKey}));

  auto check = Quell({"schema", "check", "-c", config});
  EXPECT_EQ(check.exit_code, 1) << check.out;
  EXPECT_NE(check.out.find("missing: error groups: "), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("infrai.fields." + field), std::string::npos) << check.out;
}

INSTANTIATE_TEST_SUITE_P(LevelAndTags, SchemaDriftTest,
                         ::testing::Values(std::pair<std::string, std::string>{"level", "x_level"},
                                           std::pair<std::string, std::string>{"tags", "x_tags"}),
                         [](const auto& param_info) { return param_info.param.first; });

// The issue's personal data in keys: a tenant tag holding an e-mail address became the key in
// clear. Now the key carries a pseudonym, stable across polls and distinct per address.
TEST_F(PollOnceTest, AnEMailInATenantTagNeverReachesTheKey) {
  json groups = json::array();
  for (const char* tenant : {"alice@example.com", "bob@example.com"}) {
    groups.push_back({{"id", std::string("grp_") + tenant[0]},
                      {"title", "Refund failed"},
                      {"level", "error"},
                      {"tags", {{"tenant", tenant}, {"agent_stage", "refund"}}}});
  }
  BootSim({{"groups", groups}});
  const std::string config = testing::SourcePath("examples/quell.yaml");
  std::vector<std::set<std::string>> polls;
  for (int poll = 0; poll < 2; ++poll) {
    auto r = Quell({"poll-once", "-c", config});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("example.com"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("example.com"), std::string::npos) << r.err;
    std::set<std::string> keys;
    for (const json& line : Lines(r.out)) keys.insert(line["key"].get<std::string>());
    polls.push_back(keys);
  }
  EXPECT_EQ(polls[0], polls[1]);
  ASSERT_EQ(polls[0].size(), 2U);
  for (const std::string& key : polls[0]) {
    EXPECT_EQ(key.rfind("pii-", 0), 0U) << key;
    EXPECT_NE(key.find(":refund:grp_"), std::string::npos) << key;
  }
  std::string bytes;
  for (const char* suffix : {"quell.db", "quell.db-wal"}) {
    if (std::filesystem::exists(dir_ / suffix)) bytes += ReadFile(dir_ / suffix);
  }
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(bytes.find("example.com"), std::string::npos) << "an address reached the store";
}

// A source is an entry point too: a megabyte tag value made a megabyte key. Now the key is cut
// to limits.key_bytes (512 by default) and kept distinct by its digest.
TEST_F(PollOnceTest, AHugeTagFromTheSourceMakesABoundedKey) {
  BootSim({{"groups",
            {{{"id", "grp_huge"},
              {"level", "error"},
              {"tags", {{"tenant", std::string(1 << 20, 't')}, {"agent_stage", "x"}}}}}}});
  const std::string config = testing::SourcePath("examples/quell.yaml");
  std::string first;
  for (int poll = 0; poll < 2; ++poll) {
    auto r = Quell({"poll-once", "-c", config});
    ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 500);
    const auto lines = Lines(r.out);
    ASSERT_EQ(lines.size(), 1U);
    const std::string key = lines[0]["key"];
    EXPECT_EQ(key.size(), 512U);
    if (poll == 0) first = key;
    EXPECT_EQ(key, first);
  }
}

TEST_F(PollOnceTest, PlantedSecretsAndTheKeyNeverReachTheStore) {
  json scenario = {{"groups",
                    {{{"id", "grp_pii"},
                      {"title", "Refund failed for mary.major@example.org"},
                      {"message",
                       "card 5500 0055 5555 5559 rejected, phone +44 20 7946 0958, "
                       "Authorization: Bearer sk_live_51HqLyjWDarjtT1zdp7dcXYZ"},
                      {"tags",
                       {{"tenant", "acme"},
                        {"agent_stage", "refund"},
                        {"token", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}}},
                      {"events", 2}}}}};
  BootSim(scenario);
  auto r = Quell({"poll-once", "-c", testing::SourcePath("examples/quell.yaml")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Fault({{"route", "*"}, {"kind", "401"}, {"count", 1}});
  r = Quell({"poll-once", "-c", testing::SourcePath("examples/quell.yaml")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("UNAUTHORIZED"), std::string::npos) << r.err;

  std::string bytes;
  for (const char* suffix : {"quell.db", "quell.db-wal"}) {
    if (std::filesystem::exists(dir_ / suffix)) bytes += ReadFile(dir_ / suffix);
  }
  ASSERT_FALSE(bytes.empty());
  for (const char* planted :
       {"mary.major@example.org", "5500 0055 5555 5559", "7946 0958",
        "sk_live_51HqLyjWDarjtT1zdp7dcXYZ", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", kKey}) {
    EXPECT_EQ(bytes.find(planted), std::string::npos) << planted << " reached the store";
  }
  EXPECT_NE(bytes.find("Refund failed"), std::string::npos);  // the evidence itself is there
}

TEST_F(PollOnceTest, BadConfigExitsTwoWithWhereAndWhat) {
  BootSim(Scenario());
  const std::string config =
      WriteConfig("conditions:\n  - {name: x, type: error_groups, cooldown: soon}\n");
  auto r = Quell({"poll-once", "-c", config});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("quell.yaml:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cooldown"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "quell.db"));
}

TEST_F(PollOnceTest, SchemaCheckPassesOnTheSimulatorAndNamesWhatIsMissing) {
  BootSim(Scenario());
  auto r = Quell({"schema", "check", "-c", testing::SourcePath("examples/quell.yaml")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("schema check: ok"), std::string::npos) << r.out;

  const std::string config = WriteConfig(R"(infrai: {base_url: "${INFRAI_BASE_URL}"}
conditions:
  - {name: cost, type: infrai_metric, metric: model_answer.cost_usd, key: "{tenant}:cost",
     above: 5, params: {name: model_answer.cost_usd}}
  - {name: latency, type: infrai_metric, metric: model_answer.latency_ms, key: "{tenant}:{region}",
     above: 5}
)");
  r = Quell({"schema", "check", "-c", config});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("undeclared: condition cost sends the query parameter \"name\""),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("not seen: condition cost: metric \"model_answer.cost_usd\""),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("not seen: condition latency: label \"region\""), std::string::npos)
      << r.out;
}

TEST(PollOncePrometheusTest, APrometheusThresholdOpensAndResolves) {
  QUELL_REQUIRE_PROMETHEUS();
  auto server = testing::PrometheusServer::Start();
  ASSERT_TRUE(server.ok()) << server.error().message;
  (*server)->SetGauge("model_answer_latency_p99_seconds", {{"tenant", "acme"}}, 3.5);
  ASSERT_TRUE((*server)->WaitForValue("model_answer_latency_p99_seconds", 3.5).ok());

  const testing::ScratchDir dir("quell-poll-prometheus");
  const auto config = dir / "quell.yaml";
  std::ofstream(config) << "store: sqlite:" << (dir / "quell.db").string() << "\n"
                        << "prometheus: {url: " << (*server)->base_url() << "}\n"
                        << R"(defaults: {healthy_polls_to_close: 2}
conditions:
  - name: answer-latency
    type: prometheus
    query: max by (tenant) (model_answer_latency_p99_seconds)
    key: "{tenant}:model-answer:latency-p99"
    above: 2
    recovery: 1.5
)";
  const auto poll = [&config] {
    auto r = testing::RunProcess({testing::QuellBinary(), "poll-once", "-c", config.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out.empty() ? "{}" : r.out);
  };
  EXPECT_EQ(poll()["decision"], "notify");
  (*server)->SetGauge("model_answer_latency_p99_seconds", {{"tenant", "acme"}}, 1.8);
  ASSERT_TRUE((*server)->WaitForValue("model_answer_latency_p99_seconds", 1.8).ok());
  EXPECT_EQ(poll()["decision"], "update_only");  // inside the hysteresis band: still open
  (*server)->SetGauge("model_answer_latency_p99_seconds", {{"tenant", "acme"}}, 1.0);
  ASSERT_TRUE((*server)->WaitForValue("model_answer_latency_p99_seconds", 1.0).ok());
  EXPECT_EQ(poll()["decision"], "wait_for_health");
  EXPECT_EQ(poll()["decision"], "resolve");
}

// A Prometheus condition with a typo'd query observed nothing, silently; a label missing from
// the answer rendered as "-" in the key; and `schema check` did not look at Prometheus at all.
TEST(PollOncePrometheusTest, SchemaCheckNamesABadQueryAMissingKeyLabelAndAnEmptyAnswer) {
  QUELL_REQUIRE_PROMETHEUS();
  auto server = testing::PrometheusServer::Start();
  ASSERT_TRUE(server.ok()) << server.error().message;
  (*server)->SetGauge("schema_latency_seconds", {{"tenant", "acme"}}, 3.5);
  ASSERT_TRUE((*server)->WaitForValue("schema_latency_seconds", 3.5).ok());

  const testing::ScratchDir dir("quell-schema-prometheus");
  const auto config = dir / "quell.yaml";
  const auto write = [&](const std::string& conditions) {
    std::ofstream(config) << "store: sqlite:" << (dir / "quell.db").string() << "\n"
                          << "prometheus: {url: " << (*server)->base_url() << "}\n"
                          << "conditions:\n"
                          << conditions;
  };
  write(R"yaml(  - {name: good, type: prometheus, key: "{tenant}:latency", above: 2,
     query: "max by (tenant) (schema_latency_seconds)"}
)yaml");
  auto r = testing::RunProcess({testing::QuellBinary(), "schema", "check", "-c", config.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(
      r.out.find("schema check: ok against " + (*server)->base_url() + " (1 Prometheus condition)"),
      std::string::npos)
      << r.out;

  write(R"yaml(  - {name: good, type: prometheus, key: "{tenant}:latency", above: 2,
     query: "max by (tenant) (schema_latency_seconds)"
  }
  - {name: syntax, type: prometheus, key: "{tenant}:latency", above: 2,
     query: "max by (tenant (schema_latency_seconds)"}
  - {name: unkeyed, type: prometheus, key: "{tenant}:{region}:latency", above: 2,
     query: "max by (region) (schema_latency_seconds)"}
  - {name: typo, type: prometheus, key: "{tenant}:latency", above: 2,
     query: "max by (tenant) (schema_latncy_seconds)"}
)yaml");
  r = testing::RunProcess({testing::QuellBinary(), "schema", "check", "-c", config.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("invalid: condition \"syntax\" query \"max by (tenant "
                       "(schema_latency_seconds)\": Prometheus refused it: bad_data: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("parse error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("missing label: condition \"unkeyed\" query \"max by (region) "
                       "(schema_latency_seconds)\": key \"{tenant}:{region}:latency\" reads "
                       "label \"tenant\", which 1 of 1 series in the answer lack"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"region\", which 1 of 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: no series: condition \"typo\" query \"max by (tenant) "
                       "(schema_latncy_seconds)\": answered 0 series"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("condition \"good\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("schema check: 3 problems against"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace quell
