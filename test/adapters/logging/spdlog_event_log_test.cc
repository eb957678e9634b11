#include "quell/adapters/logging/spdlog_event_log.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../../app/fake_clock.h"

namespace quell::logging {
namespace {

const core::WallTime kNow{std::chrono::seconds(1764716400)};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(SpdlogEventLogTest, WritesOneJsonObjectPerLineWithEscapedFields) {
  std::ostringstream out;
  testing::FakeClock clock{kNow};
  SpdlogEventLog log(clock, {.format = EventFormat::kJson, .min_level = core::LogLevel::kInfo},
                     std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  log.Log(core::LogLevel::kWarn, "poll.condition",
          {{"poll_id", "run-1"}, {"incident_key", "acme:\"quoted\"\nnext\\line"}});
  log.Log(core::LogLevel::kInfo, "run.stop", {});
  const auto lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 2U) << out.str();
  const auto first = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(first["ts"], "2025-12-02T23:00:00Z");
  EXPECT_EQ(first["level"], "warn");
  EXPECT_EQ(first["event"], "poll.condition");
  EXPECT_EQ(first["poll_id"], "run-1");
  EXPECT_EQ(first["incident_key"], "acme:\"quoted\"\nnext\\line");
  EXPECT_EQ(nlohmann::json::parse(lines[1])["event"], "run.stop");
}

TEST(SpdlogEventLogTest, NumbersAndBooleansAreJsonLiteralsAndStringsStayStrings) {
  // "observations":"0" made every log pipeline parse numbers out of strings.
  const size_t observations = 12;
  const int64_t negative = -7;
  const std::string line = SpdlogEventLog::FormatLine(
      EventFormat::kJson, core::WallTime{}, core::LogLevel::kInfo, "poll.condition",
      {{"observations", observations}, {"delta", negative}, {"ok", false}, {"key", "42"}});
  const auto json = nlohmann::json::parse(line);
  EXPECT_TRUE(json["observations"].is_number_unsigned()) << line;
  EXPECT_EQ(json["observations"], 12);
  EXPECT_EQ(json["delta"], -7);
  EXPECT_EQ(json["ok"], false);
  EXPECT_EQ(json["key"], "42") << "a string that looks like a number stays a string";
  // A copied field keeps its own digits.
  const core::LogField original("n", uint64_t{18446744073709551615U});
  const core::LogField copy(original);
  EXPECT_EQ(copy.value, "18446744073709551615");
  EXPECT_NE(copy.value.data(), original.value.data());
}

TEST(SpdlogEventLogTest, DropsEventsBelowTheLevel) {
  std::ostringstream out;
  testing::FakeClock clock{kNow};
  SpdlogEventLog log(clock, {.format = EventFormat::kJson, .min_level = core::LogLevel::kWarn},
                     std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  log.Log(core::LogLevel::kInfo, "poll.cycle_end", {});
  log.Log(core::LogLevel::kDebug, "poll.decision", {});
  log.Log(core::LogLevel::kError, "config.reload_failed", {{"error", "x"}});
  const auto lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 1U) << out.str();
  EXPECT_EQ(nlohmann::json::parse(lines[0])["event"], "config.reload_failed");
}

TEST(SpdlogEventLogTest, TextLinesQuoteValuesWithSpaces) {
  const std::string line = SpdlogEventLog::FormatLine(
      EventFormat::kText, core::WallTime{std::chrono::seconds(1764716400)}, core::LogLevel::kInfo,
      "config.reloaded", {{"config", "/etc/q.yaml"}, {"why", "a b"}});
  EXPECT_EQ(line, "2025-12-02T23:00:00Z info config.reloaded config=/etc/q.yaml why=\"a b\"");
}

}  // namespace
}  // namespace quell::logging
