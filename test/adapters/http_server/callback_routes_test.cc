// The callback routes (signed ack links) through the real ops server on loopback, with a
// bearer token configured that the requests never carry, on a real SQLite store.
#include "quell/adapters/http_server/callback_routes.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "quell/adapters/http_server/ops_http_server.h"
#include "quell/adapters/jsonl/payload_encoder.h"
#include "quell/adapters/sqlite/sqlite_incident_store.h"
#include "quell/app/poll_applier.h"
#include "quell/app/vector_observation_stream.h"

namespace quell::http_server {
namespace {

using std::chrono::hours;

constexpr const char* kSecret = "ack-link-secret-for-tests-0123456789";

class StepClock : public core::Clock {
 public:
  core::WallTime Now() override { return now; }
  core::MonoTime Monotonic() override { return core::MonoTime(now.time_since_epoch()); }
  void SleepFor(core::Duration d) override { now += d; }
  core::WallTime now = *core::ParseRfc3339("2026-12-02T09:00:00Z");
};

class RecordingLog : public core::EventLog {
 public:
  struct Line {
    std::string event;
    std::map<std::string, std::string> fields;
  };
  void Log(core::LogLevel, std::string_view event,
           std::initializer_list<core::LogField> fields) override {
    const std::lock_guard<std::mutex> guard(mutex);
    Line line{std::string(event), {}};
    for (const core::LogField& f : fields) line.fields[std::string(f.name)] = std::string(f.value);
    lines.push_back(std::move(line));
  }
  std::vector<Line> Lines() {
    const std::lock_guard<std::mutex> guard(mutex);
    return lines;
  }
  std::mutex mutex;
  std::vector<Line> lines;
};

class NullSink : public app::DecisionSink {
 public:
  void OnDecision(const core::Observation&, const core::Decision&) override {}
  void Reset() override {}
};

class AckLinkRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/quell-callback-routes-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    auto store = sqlite::SqliteIncidentStore::Open(dir_ + "/quell.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    store_ = std::move(*store);
    commands_ = std::make_unique<app::OperatorCommands>(*store_, *store_, encoder_);
    signer_ =
        std::make_shared<channels::AckLinkSigner>(kSecret, "https://quell.example.com", hours(24));
    OpsServerOptions options;
    options.token = "operator-token";
    options.threads = 2;
    server_ = std::make_unique<OpsHttpServer>(
        options, CallbackRoutes(*commands_, clock_, log_, CallbackSettings{.ack_links = signer_}));
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.error().message;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  void TearDown() override {
    server_->Stop();
    std::filesystem::remove_all(dir_);
  }

  void Observe(const std::string& key, bool unhealthy) {
    app::ApplyOptions options;
    options.channels = {"webhook"};
    app::PollApplier applier(*store_, encoder_, options);
    core::Observation o;
    o.key = key;
    o.at = clock_.now;
    o.health = unhealthy ? core::Health::kUnhealthy : core::Health::kHealthy;
    o.condition = "c";
    const std::vector<core::Observation> poll = {o};
    app::VectorObservationStream stream(poll);
    NullSink sink;
    ASSERT_TRUE(
        applier.Apply(stream, "p-" + core::FormatRfc3339(clock_.now), clock_.now, sink).ok());
  }

  core::Incident Load(const std::string& key) {
    auto all = commands_->ListIncidents(false);
    EXPECT_TRUE(all.ok());
    for (core::Incident& in : *all) {
      if (in.key == key) return in;
    }
    ADD_FAILURE() << "no incident " << key;
    return {};
  }

  // The path of the link a message of `key`'s `generation` carries, issued now.
  std::string LinkPath(const std::string& key, uint64_t generation) {
    const std::string link = signer_->Link(key, generation, clock_.now);
    const std::string base = "https://quell.example.com";
    EXPECT_EQ(link.substr(0, base.size()), base);
    return link.substr(base.size());
  }

  httplib::Result Get(const std::string& path) { return client_->Get(path); }
  httplib::Result Post(const std::string& path) {
    return client_->Post(path, "", "application/x-www-form-urlencoded");
  }

  // Whether any log line holds `text` in any field.
  bool Logged(const std::string& text) {
    for (const auto& line : log_.Lines()) {
      for (const auto& [name, value] : line.fields) {
        if (value.find(text) != std::string::npos) return true;
      }
    }
    return false;
  }

  std::string dir_;
  StepClock clock_;
  jsonl::JsonPayloadEncoder encoder_;
  std::unique_ptr<sqlite::SqliteIncidentStore> store_;
  std::unique_ptr<app::OperatorCommands> commands_;
  std::shared_ptr<channels::AckLinkSigner> signer_;
  RecordingLog log_;
  std::unique_ptr<OpsHttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(AckLinkRoutesTest, GetShowsAConfirmationPageAndAcksNothing) {
  Observe("acme:db/<primary>", true);
  auto page = Get(LinkPath("acme:db/<primary>", 1));
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200) << page->body;
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("acme:db/&lt;primary&gt;"), std::string::npos) << page->body;
  EXPECT_NE(page->body.find("<form method=\"post\">"), std::string::npos) << page->body;
  EXPECT_FALSE(Load("acme:db/<primary>").acked_at.has_value());
}

TEST_F(AckLinkRoutesTest, PostAcksTheIncidentByLinkWithoutTheBearerToken) {
  Observe("acme:db", true);
  clock_.now += std::chrono::minutes(5);
  auto acked = Post(LinkPath("acme:db", 1));
  ASSERT_TRUE(acked);
  EXPECT_EQ(acked->status, 200) << acked->body;
  EXPECT_NE(acked->body.find("is acknowledged (by link at 2026-12-02T09:05:00Z)"),
            std::string::npos)
      << acked->body;
  const core::Incident incident = Load("acme:db");
  ASSERT_TRUE(incident.acked_at.has_value());
  EXPECT_EQ(incident.acked_by, "link");
  ASSERT_FALSE(log_.Lines().empty());
  EXPECT_EQ(log_.Lines().back().fields["status"], "acked");
  // A second press keeps the first ack.
  auto again = Post(LinkPath("acme:db", 1));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
}

TEST_F(AckLinkRoutesTest, ForgedLinksAreRefusedAndLoggedWithoutTheirMac) {
  Observe("acme:db", true);
  const std::string path = LinkPath("acme:db", 1);
  const std::string mac = path.substr(path.rfind('.') + 1);
  // Another key's link with this link's mac; a flipped mac digit; another secret's link.
  const std::string other = LinkPath("acme:other", 1);
  const std::string swapped = other.substr(0, other.rfind('.') + 1) + mac;
  std::string flipped = path;
  flipped.back() = flipped.back() == '0' ? '1' : '0';
  channels::AckLinkSigner stranger("another-secret-of-enough-length", "https://x", hours(24));
  const std::string foreign = "/v1/ack/" + stranger.Token("acme:db", 1, clock_.now + hours(1));
  for (const std::string& forged : {swapped, flipped, foreign}) {
    for (bool post : {false, true}) {
      auto refused = post ? Post(forged) : Get(forged);
      ASSERT_TRUE(refused);
      EXPECT_EQ(refused->status, 403) << forged << " " << refused->body;
      EXPECT_NE(refused->body.find("signature is not valid"), std::string::npos);
    }
  }
  EXPECT_FALSE(Load("acme:db").acked_at.has_value());
  EXPECT_EQ(log_.Lines().size(), 6u);
  EXPECT_EQ(log_.Lines().front().fields["status"], "refused");
  EXPECT_FALSE(Logged(mac));
  EXPECT_FALSE(Logged(flipped.substr(flipped.rfind('.') + 1)));

  auto malformed = Post("/v1/ack/v1.1.notanumber.YWNtZTpkYg.0123");
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->status, 400) << malformed->body;
}

TEST_F(AckLinkRoutesTest, ExpiredLinksAreRefused) {
  Observe("acme:db", true);
  const std::string path = LinkPath("acme:db", 1);
  clock_.now += hours(24);
  auto get = Get(path);
  auto post = Post(path);
  ASSERT_TRUE(get && post);
  EXPECT_EQ(get->status, 410) << get->body;
  EXPECT_EQ(post->status, 410) << post->body;
  EXPECT_NE(post->body.find("expired at 2026-12-03T09:00:00Z"), std::string::npos) << post->body;
  EXPECT_FALSE(Load("acme:db").acked_at.has_value());
  EXPECT_EQ(log_.Lines().size(), 2u);
}

TEST_F(AckLinkRoutesTest, ALinkReplayedAfterTheResolveOrForAnEarlierGenerationIsRefused) {
  Observe("acme:db", true);
  const std::string first = LinkPath("acme:db", 1);
  ASSERT_TRUE(commands_->Resolve("acme:db", "alice", clock_.now).ok());
  auto after_resolve = Post(first);
  ASSERT_TRUE(after_resolve);
  EXPECT_EQ(after_resolve->status, 409) << after_resolve->body;
  EXPECT_NE(after_resolve->body.find("not open"), std::string::npos) << after_resolve->body;

  clock_.now += std::chrono::minutes(1);
  Observe("acme:db", false);
  clock_.now += std::chrono::minutes(1);
  Observe("acme:db", true);
  ASSERT_EQ(Load("acme:db").generation, 2u);
  auto old_generation = Post(first);
  ASSERT_TRUE(old_generation);
  EXPECT_EQ(old_generation->status, 409) << old_generation->body;
  EXPECT_NE(old_generation->body.find("generation 2, not 1"), std::string::npos)
      << old_generation->body;
  EXPECT_FALSE(Load("acme:db").acked_at.has_value());
  EXPECT_EQ(log_.Lines().back().fields["status"], "refused");

  auto unknown = Post(LinkPath("acme:nobody", 1));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404) << unknown->body;
}

}  // namespace
}  // namespace quell::http_server
