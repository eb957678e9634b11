#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace quell::testing {

// For tests that run `quell replay` as a user would: a private directory for configs, removed
// afterwards, and the JSON Lines the command printed.
class ReplayDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "quell-replay-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `text` as quell.yaml in the directory and returns its path.
  std::string WriteConfig(const std::string& text) {
    const std::string path = dir_ + "/quell.yaml";
    std::ofstream(path) << text;
    return path;
  }

  static std::vector<nlohmann::json> Lines(const std::string& text) {
    std::vector<nlohmann::json> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
  }

  std::string dir_;
};

}  // namespace quell::testing
