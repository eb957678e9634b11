// GET /v1/maintenance through the ops server on a real loopback port, over a fixed zone rule
// set, spoken to by cpp-httplib's client.
#include "quell/adapters/http_server/maintenance_routes.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../app/fake_clock.h"
#include "quell/adapters/http_server/ops_http_server.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/adapters/text_output/maintenance_json.h"

namespace quell::http_server {
namespace maintenance_routes_test {

using nlohmann::json;

constexpr const char* kToken = "maintenance-reader-token-0123";

core::WallTime At(const char* text) { return *core::ParseRfc3339(text); }

// An hour east of UTC until 2026-03-29T01:00Z and two hours after, as Berlin; enough rules to
// see the listing move with the zone's change without the system's tz database.
class ShiftZones : public core::ZoneRules {
 public:
  core::Status CheckZone(std::string_view zone) const override {
    if (zone == "Test/Shift") return {};
    return core::MakeError(core::ErrorCode::kNotFound, "unknown time zone " + std::string(zone));
  }
  core::Result<core::LocalTime> ToLocal(std::string_view zone, core::WallTime at) const override {
    if (auto known = CheckZone(zone); !known) return known.error();
    return core::LocalTime{(at + Offset(at)).time_since_epoch()};
  }
  core::Result<core::WallTime> ToUtc(std::string_view zone, core::LocalTime local) const override {
    if (auto known = CheckZone(zone); !known) return known.error();
    const core::WallTime as_utc{local.time_since_epoch()};
    const core::WallTime before = as_utc - std::chrono::hours{1};
    return before < kChange ? before : as_utc - std::chrono::hours{2};
  }

 private:
  core::Duration Offset(core::WallTime at) const {
    return at < kChange ? std::chrono::hours{1} : std::chrono::hours{2};
  }
  const core::WallTime kChange = At("2026-03-29T01:00:00Z");
};

core::MaintenanceWindow TuesdayDeploys() {
  core::MaintenanceWindow window;
  window.name = "tuesday-deploys";
  window.keys = "deploy:*";
  window.labels = {{"tenant", "acme"}};
  window.time_zone = "Test/Shift";
  window.weekdays[*core::ParseWeekday("tuesday")] = true;
  window.weekdays[*core::ParseWeekday("thursday")] = true;
  window.times = {*core::ParseTimeRange("09:00-10:00"), *core::ParseTimeRange("22:00-01:30")};
  return window;
}

class MaintenanceRoutesTest : public ::testing::Test {
 protected:
  void Serve(std::vector<core::MaintenanceWindow> windows, bool open_reads = false) {
    OpsServerOptions options;
    options.token = kToken;
    options.open_reads = open_reads;
    listing_.Set(std::move(windows));
    server_ = std::make_unique<OpsHttpServer>(options, MaintenanceRoutes(listing_, zones_, clock_));
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  httplib::Result Get(bool with_token = true) {
    httplib::Headers headers;
    if (with_token) headers.emplace("Authorization", std::string("Bearer ") + kToken);
    return client_->Get("/v1/maintenance", headers);
  }

  testing::FakeClock clock_{At("2026-03-31T07:30:00Z")};
  ShiftZones zones_;
  MaintenanceListing listing_;
  std::unique_ptr<OpsHttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(MaintenanceRoutesTest, ListsEachWindowWithWhetherItIsOpenNowAndItsOccurrence) {
  Serve({TuesdayDeploys()});
  auto answer = Get();
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200) << answer->body;
  EXPECT_EQ(answer->get_header_value("Content-Type"), "application/json");
  const json body = json::parse(answer->body);
  ASSERT_EQ(body["windows"].size(), 1u) << answer->body;
  const json& w = body["windows"][0];
  EXPECT_EQ(w["name"], "tuesday-deploys");
  EXPECT_EQ(w["keys"], "deploy:*");
  EXPECT_EQ(w["labels"], json({{"tenant", "acme"}}));
  EXPECT_EQ(w["time_zone"], "Test/Shift");
  EXPECT_EQ(w["weekdays"], json({"tuesday", "thursday"}));
  EXPECT_EQ(w["times"], json({"09:00-10:00", "22:00-01:30"}));
  // 07:30Z on Tuesday 31 March is 09:30 in the zone's summer time: open.
  EXPECT_EQ(w["active"], true);
  EXPECT_EQ(w["start"], "2026-03-31T07:00:00Z");
  EXPECT_EQ(w["end"], "2026-03-31T08:00:00Z");
  EXPECT_EQ(w["start_local"], "2026-03-31T09:00:00");

  // The server's clock moves: a week earlier, before the change, the same local hours are an
  // hour later in UTC, and at 07:30Z (08:30 local) the window is not open yet.
  clock_.StepWall(At("2026-03-24T07:30:00Z") - clock_.Now());
  answer = Get();
  ASSERT_TRUE(answer);
  const json before = json::parse(answer->body)["windows"][0];
  EXPECT_EQ(before["active"], false);
  EXPECT_EQ(before["start"], "2026-03-24T08:00:00Z");
  EXPECT_EQ(before["end"], "2026-03-24T09:00:00Z");
}

TEST_F(MaintenanceRoutesTest, ShowsTheSameObjectsAsTheCliLines) {
  Serve({TuesdayDeploys()});
  auto answer = Get();
  ASSERT_TRUE(answer);
  auto line = text_output::MaintenanceWindowJson(TuesdayDeploys(), zones_, clock_.Now());
  ASSERT_TRUE(line.ok());
  // The same text, field order included: one writer.
  EXPECT_EQ(answer->body, R"({"windows":[)" + *line + "]}");
}

TEST_F(MaintenanceRoutesTest, IsAReadRouteBehindTheTokenUnlessReadsAreOpen) {
  Serve({TuesdayDeploys()});
  auto refused = Get(/*with_token=*/false);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401) << refused->body;
  Serve({TuesdayDeploys()}, /*open_reads=*/true);
  auto open = Get(/*with_token=*/false);
  ASSERT_TRUE(open);
  EXPECT_EQ(open->status, 200) << open->body;
}

TEST_F(MaintenanceRoutesTest, ListsWhatTheListingHoldsNow) {
  Serve({TuesdayDeploys()});
  core::MaintenanceWindow sundays = TuesdayDeploys();
  sundays.name = "sundays";
  listing_.Set({TuesdayDeploys(), sundays});  // what a reload does
  auto answer = Get();
  ASSERT_TRUE(answer);
  const json windows = json::parse(answer->body)["windows"];
  ASSERT_EQ(windows.size(), 2u) << answer->body;
  EXPECT_EQ(windows[1]["name"], "sundays");
}

TEST_F(MaintenanceRoutesTest, NoWindowsIsAnEmptyList) {
  Serve({});
  auto answer = Get();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(json::parse(answer->body), json::parse(R"({"windows":[]})"));
}

TEST_F(MaintenanceRoutesTest, AZoneTheRulesDoNotKnowIsA500NamingTheWindow) {
  core::MaintenanceWindow unknown = TuesdayDeploys();
  unknown.name = "atlantis";
  unknown.time_zone = "Europe/Atlantis";
  Serve({TuesdayDeploys(), unknown});
  auto answer = Get();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 500);
  const json body = json::parse(answer->body);
  EXPECT_EQ(body["error"]["code"], "internal");
  EXPECT_NE(body["error"]["message"].get<std::string>().find("atlantis"), std::string::npos);
}

class RecordingLog : public core::EventLog {
 public:
  void Log(core::LogLevel, std::string_view event,
           std::initializer_list<core::LogField> fields) override {
    std::string line(event);
    for (const core::LogField& f : fields)
      line += " " + std::string(f.name) + "=" + std::string(f.value);
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

// POST /v1/maintenance and its expiry on a real SQLite store, through the server on loopback.
TEST_F(MaintenanceRoutesTest, OneOffWindowsAreAddedListedAndExpiredOverHttp) {
  char pattern[] = "/tmp/quell-maintenance-routes-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  auto store = sqlite::SqliteIncidentStore::Open(dir + "/quell.db");
  ASSERT_TRUE(store.ok()) << store.error().message;
  app::OneOffMaintenance one_off(**store);
  RecordingLog log;
  OpsServerOptions options;
  options.token = kToken;
  listing_.Set({});
  server_ = std::make_unique<OpsHttpServer>(
      options, MaintenanceRoutes(listing_, zones_, clock_, &one_off, &log));
  auto port = server_->Start();
  ASSERT_TRUE(port.ok()) << port.error().message;
  client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};

  auto added = client_->Post("/v1/maintenance", auth,
                             R"({"keys":"acme:*","labels":{"tier":"db"},"for":"2h",)"
                             R"("reason":"db upgrade","by":"alice"})",
                             "application/json");
  ASSERT_TRUE(added);
  ASSERT_EQ(added->status, 201) << added->body;
  const json window = json::parse(added->body)["window"];
  EXPECT_EQ(window["keys"], "acme:*");
  EXPECT_EQ(window["labels"], json({{"tier", "db"}}));
  EXPECT_EQ(window["starts_at"], "2026-03-31T07:30:00Z");
  EXPECT_EQ(window["ends_at"], "2026-03-31T09:30:00Z");
  EXPECT_EQ(window["created_by"], "alice");
  EXPECT_EQ(window["active"], true);
  const std::string id = std::to_string(window["id"].get<uint64_t>());

  auto listed = Get();
  ASSERT_TRUE(listed);
  const json body = json::parse(listed->body);
  EXPECT_EQ(body["windows"], json::array());
  ASSERT_EQ(body["one_off"].size(), 1u);
  EXPECT_EQ(body["one_off"][0]["reason"], "db upgrade");

  clock_.Advance(std::chrono::minutes(10));
  auto expired = client_->Post("/v1/maintenance/" + id + "/expire", auth, "", "application/json");
  ASSERT_TRUE(expired);
  ASSERT_EQ(expired->status, 200) << expired->body;
  EXPECT_EQ(json::parse(expired->body)["window"]["ends_at"], "2026-03-31T07:40:00Z");
  EXPECT_EQ(json::parse(expired->body)["window"]["active"], false);
  auto again = client_->Post("/v1/maintenance/" + id + "/expire", auth, "", "application/json");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409);
  auto unknown = client_->Post("/v1/maintenance/999/expire", auth, "", "application/json");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);

  auto bad =
      client_->Post("/v1/maintenance", auth, R"({"keys":"x","reason":"r"})", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("ends_at, for"), std::string::npos) << bad->body;
  auto no_token = client_->Post("/v1/maintenance", R"({"keys":"x","reason":"r","for":"1h"})",
                                "application/json");
  ASSERT_TRUE(no_token);
  EXPECT_EQ(no_token->status, 401);

  ASSERT_GE(log.lines.size(), 3u);
  EXPECT_NE(log.lines[0].find("action=maintenance.add"), std::string::npos) << log.lines[0];
  EXPECT_NE(log.lines[0].find("key=acme:*"), std::string::npos) << log.lines[0];
  EXPECT_NE(log.lines[1].find("action=maintenance.expire"), std::string::npos);
  server_->Stop();
  std::filesystem::remove_all(dir);
}

}  // namespace maintenance_routes_test
}  // namespace quell::http_server
