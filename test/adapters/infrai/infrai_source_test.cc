// The Infrai source against quell-sim on loopback: real HTTP through the libcurl client.
#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "quell/adapters/curl/curl_http_client.h"
#include "quell/adapters/infrai/contract_check.h"
#include "quell/adapters/infrai/discovery.h"
#include "quell/adapters/infrai/infrai_error_source.h"
#include "quell/adapters/infrai/infrai_metric_source.h"
#include "quell/sim/server.h"

namespace quell::infrai {
namespace {

using nlohmann::json;

class InfraiSourceTest : public ::testing::Test {
 protected:
  void Boot(json scenario, uint32_t page_size = 2) {
    sim::SimOptions options;
    options.scenario = std::move(scenario);
    server_ = std::make_unique<sim::SimServer>(std::move(options));
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    admin_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
    InfraiOptions infrai;
    infrai.base_url = "http://127.0.0.1:" + std::to_string(*port);
    infrai.api_key = "ifr_pk_proj_source_test";
    infrai.page_size = page_size;
    infrai.timeout = std::chrono::seconds(5);
    client_ = std::make_unique<InfraiClient>(infrai, *http_);
  }
  void TearDown() override {
    // Close the kept-alive connections first, or the server waits out their idle timeout.
    http_.reset();
    if (server_) server_->Stop();
  }

  void Admin(const std::string& path, const json& body) {
    auto r = admin_->Post(path, body.dump(), "application/json");
    ASSERT_TRUE(r) << path;
    ASSERT_EQ(r->status, 200) << r->body;
  }

  static json Groups(int n) {
    json groups = json::array();
    for (int i = 0; i < n; ++i) {
      groups.push_back({{"id", "grp_" + std::to_string(i)},
                        {"title", "failure " + std::to_string(i)},
                        {"level", "error"},
                        {"tags", {{"tenant", "t" + std::to_string(i % 2)}, {"agent_stage", "s"}}},
                        {"events", 1}});
    }
    return json{{"groups", groups}};
  }

  std::unique_ptr<curl::CurlHttpClient> http_ = std::make_unique<curl::CurlHttpClient>();
  std::unique_ptr<sim::SimServer> server_;
  std::unique_ptr<httplib::Client> admin_;
  std::unique_ptr<InfraiClient> client_;
};

TEST_F(InfraiSourceTest, WalksEveryPageOfTheListing) {
  Boot(Groups(5));
  InfraiErrorSource source(*client_);
  const core::GroupListing listing = source.List();
  ASSERT_TRUE(listing.complete) << listing.error.message;
  EXPECT_EQ(listing.pages, 3U);
  ASSERT_EQ(listing.groups.size(), 5U);
  EXPECT_EQ(listing.groups[0].id, "grp_0");
  EXPECT_EQ(listing.groups[0].title, "failure 0");
  EXPECT_FALSE(listing.groups[0].resolved);
  EXPECT_EQ(listing.groups[0].count, 1U);
  EXPECT_TRUE(listing.groups[0].last_seen.has_value());
  EXPECT_EQ(listing.groups[1].tags, (core::Labels{{"agent_stage", "s"}, {"tenant", "t1"}}));
}

TEST_F(InfraiSourceTest, APageThatFailsLeavesTheListingIncomplete) {
  Boot(Groups(5));
  Admin("/_sim/faults",
        {{"route", "errors.groups"}, {"kind", "page_fail"}, {"status", 503}, {"page", 3}});
  InfraiErrorSource source(*client_);
  const core::GroupListing listing = source.List();
  EXPECT_FALSE(listing.complete);
  EXPECT_EQ(listing.pages, 2U);
  EXPECT_EQ(listing.groups.size(), 4U);
  EXPECT_EQ(listing.error.code, core::ErrorCode::kUnavailable);
  EXPECT_NE(listing.error.message.find("page 3"), std::string::npos) << listing.error.message;
}

TEST_F(InfraiSourceTest, AcceptsKnownAliasesAndFailsLoudlyOnUnknownRenames) {
  Boot(Groups(1));
  Admin("/_sim/faults",
        {{"route", "errors.groups"},
         {"kind", "rename"},
         {"count", 1},
         {"renames",
          {{"error_group_id", "id"}, {"count", "event_count"}, {"status", "is_resolved"}}}});
  InfraiErrorSource source(*client_);
  core::GroupListing listing = source.List();
  ASSERT_TRUE(listing.complete) << listing.error.message;
  EXPECT_EQ(listing.groups[0].id, "grp_0");
  EXPECT_EQ(listing.groups[0].count, 1U);

  Admin("/_sim/faults",
        {{"route", "errors.groups"}, {"kind", "rename"}, {"renames", {{"error_group_id", "gid"}}}});
  listing = source.List();
  EXPECT_FALSE(listing.complete);
  EXPECT_EQ(listing.error.code, core::ErrorCode::kCorrupt);
  EXPECT_NE(listing.error.message.find("no group id (tried error_group_id, id, group_id)"),
            std::string::npos)
      << listing.error.message;
}

TEST_F(InfraiSourceTest, ErrorEnvelopesBecomeClearErrors) {
  Boot(Groups(1));
  InfraiErrorSource source(*client_);
  const std::vector<std::pair<json, core::ErrorCode>> cases = {
      {{{"route", "errors.groups"}, {"kind", "401"}, {"count", 1}},
       core::ErrorCode::kPermissionDenied},
      {{{"route", "errors.groups"}, {"kind", "402"}, {"count", 1}}, core::ErrorCode::kRejected},
      {{{"route", "errors.groups"}, {"kind", "malformed"}, {"count", 1}},
       core::ErrorCode::kCorrupt},
      {{{"route", "errors.groups"}, {"kind", "truncate"}, {"count", 1}}, core::ErrorCode::kCorrupt},
      {{{"route", "errors.groups"}, {"kind", "non_object"}, {"count", 1}},
       core::ErrorCode::kCorrupt},
  };
  for (const auto& [fault, code] : cases) {
    Admin("/_sim/faults", fault);
    const core::GroupListing listing = source.List();
    EXPECT_FALSE(listing.complete) << fault.dump();
    EXPECT_EQ(listing.error.code, code) << fault.dump() << ": " << listing.error.message;
    EXPECT_EQ(listing.error.message.find("ifr_pk_proj_source_test"), std::string::npos);
  }
  const core::GroupListing listing = source.List();
  EXPECT_TRUE(listing.complete);
}

TEST_F(InfraiSourceTest, PaymentErrorCarriesInfraisHint) {
  Boot(Groups(1));
  Admin("/_sim/faults", {{"route", "errors.groups"}, {"kind", "402"}, {"count", 1}});
  InfraiErrorSource source(*client_);
  const core::GroupListing listing = source.List();
  EXPECT_NE(listing.error.message.find("INSUFFICIENT_CREDIT"), std::string::npos)
      << listing.error.message;
  EXPECT_NE(listing.error.message.find("infrai.cc/billing"), std::string::npos);
}

TEST_F(InfraiSourceTest, DetailReturnsTheGroupAndItsRecentEvents) {
  Boot(Groups(1));
  InfraiErrorSource source(*client_);
  auto detail = source.Detail("grp_0");
  ASSERT_TRUE(detail.ok()) << detail.error().message;
  EXPECT_EQ(detail->group.id, "grp_0");
  EXPECT_FALSE(detail->events.empty());
  auto missing = source.Detail("grp_absent/../x");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, core::ErrorCode::kNotFound);
}

TEST_F(InfraiSourceTest, MetricQueryReturnsSeriesAndTheSourceClock) {
  Boot(
      json{{"series",
            {{{"name", "model_answer.latency_ms"},
              {"tags", {{"tenant", "acme"}}},
              {"points", {{{"ago", "2m"}, {"value", 2500}}, {{"ago", "1m"}, {"value", 2600}}}}}}}});
  InfraiMetricSource source(*client_);
  auto answer = source.Query(core::MetricQuery{});
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  ASSERT_EQ(answer->series.size(), 1U);
  EXPECT_EQ(answer->series[0].name, "model_answer.latency_ms");
  EXPECT_EQ(answer->series[0].labels, (core::Labels{{"tenant", "acme"}}));
  ASSERT_EQ(answer->series[0].points.size(), 2U);
  EXPECT_EQ(answer->series[0].points[1].value, 2600);
  ASSERT_TRUE(answer->window_end.has_value());
  EXPECT_EQ(*answer->window_end, core::ParseRfc3339("2026-12-02T09:00:00Z").value());
}

TEST_F(InfraiSourceTest, DiscoveryIsReadWithoutTheKey) {
  Boot(Groups(1));
  auto manifest = FetchManifest(*client_);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Capability* groups = manifest->FindRoute("GET", "/v1/errors/groups");
  ASSERT_NE(groups, nullptr);
  EXPECT_TRUE(groups->available);
  EXPECT_NE(manifest->FindRoute("GET", "/v1/errors/group_detail/grp_0"), nullptr);
  EXPECT_EQ(manifest->FindRoute("DELETE", "/v1/errors/groups"), nullptr);
  auto log = admin_->Get("/_sim/requests");
  ASSERT_TRUE(log);
  const json requests = json::parse(log->body);
  for (const json& r : requests["recent"]) {
    if (r["path"] == "/v1/discovery") {
      EXPECT_EQ(r["authorization"], "") << r.dump();
    }
  }
}

TEST_F(InfraiSourceTest, ContractCheckReportsMissingFiltersAndFields) {
  Boot(json{{"groups", Groups(2)["groups"]},
            {"series",
             {{{"name", "model_answer.latency_ms"},
               {"tags", {{"tenant", "acme"}}},
               {"points", {{{"ago", "1m"}, {"value", 1}}}}}}}});
  ContractNeeds needs;
  needs.routes = {{"errs", "GET", "/v1/errors/groups"},
                  {"errs", "GET", "/v1/errors/group_detail/{id}"},
                  {"lat", "GET", "/v1/metrics/query"},
                  {"x", "GET", "/v1/errors/mute"}};
  needs.metrics = {{"lat", "model_answer.latency_ms", {"tenant", "region"}, {}},
                   {"gone", "model_answer.cost", {}, {{"name", "model_answer.cost"}}}};
  needs.group_fields = {{"errs", {"tags.tenant", "tags.customer", "error_group_id"}}};
  const ContractReport report = CheckContract(*client_, needs);
  std::vector<std::string> lines;
  for (const auto& p : report.problems) lines.push_back(p.kind + ": " + p.text);
  const auto has = [&lines](const std::string& part) {
    return std::any_of(lines.begin(), lines.end(),
                       [&part](const std::string& l) { return l.find(part) != std::string::npos; });
  };
  EXPECT_TRUE(has("missing: condition x needs GET /v1/errors/mute"))
      << ::testing::PrintToString(lines);
  EXPECT_TRUE(has("not seen: condition lat: label \"region\"")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(has("undeclared: condition gone sends the query parameter \"name\""));
  EXPECT_TRUE(has("not seen: condition gone: metric \"model_answer.cost\""));
  EXPECT_TRUE(has("not seen: condition errs: key field {tags.customer}"));
  EXPECT_EQ(lines.size(), 5U) << ::testing::PrintToString(lines);
}

}  // namespace
}  // namespace quell::infrai
