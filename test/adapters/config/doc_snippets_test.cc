// Every ```yaml block in the README and docs/ is a configuration a reader may copy: each one is
// loaded through the real loader, so a documented setting the loader refuses (or a setting
// renamed in the loader and not in the docs) fails here instead of in a user's first start.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "quell/adapters/config/config_loader.h"
#include "test_paths.h"

namespace quell::config {
namespace {

struct Snippet {
  std::filesystem::path file;
  int line = 0;  // of the opening fence
  std::string text;
};

std::vector<Snippet> YamlSnippets(const std::filesystem::path& file) {
  std::vector<Snippet> out;
  std::ifstream in(file);
  std::string line;
  int number = 0;
  Snippet* open = nullptr;
  while (std::getline(in, line)) {
    ++number;
    if (open == nullptr) {
      if (line.starts_with("```yaml")) {
        out.push_back({file, number, ""});
        open = &out.back();
      }
    } else if (line.starts_with("```")) {
      open = nullptr;
    } else {
      open->text += line + "\n";
    }
  }
  return out;
}

std::vector<Snippet> AllSnippets() {
  const std::filesystem::path root = testing::SourcePath(".");
  std::vector<std::filesystem::path> files = {root / "README.md"};
  for (const auto& entry : std::filesystem::directory_iterator(root / "docs")) {
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  }
  std::vector<Snippet> out;
  for (const auto& file : files) {
    for (Snippet& s : YamlSnippets(file)) out.push_back(std::move(s));
  }
  return out;
}

// A value for every variable a snippet names: a URL where the name says URL, else a token long
// enough for any secret's minimum length.
std::optional<std::string> FakeEnvironment(std::string_view name) {
  if (name.ends_with("URL")) return "http://127.0.0.1:9/doc-snippet";
  return "doc-snippet-secret-0123456789abcdef";
}

TEST(DocSnippetsTest, EveryYamlBlockInTheDocsLoads) {
  const std::vector<Snippet> snippets = AllSnippets();
  // The docs hold one example per channel type and more; an extractor that found none (a
  // renamed folder, a changed fence) must not pass silently.
  ASSERT_GE(snippets.size(), 5U);
  const auto dir = std::filesystem::temp_directory_path() / "quell-doc-snippets";
  std::filesystem::create_directories(dir);
  for (const Snippet& s : snippets) {
    const auto path = dir / "quell.yaml";
    std::ofstream(path) << s.text;
    auto config = LoadConfig(path.string(), FakeEnvironment);
    EXPECT_TRUE(config.ok()) << s.file.filename().string() << ":" << s.line << ": "
                             << (config.ok() ? "" : config.error().message) << "\n"
                             << s.text;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quell::config
