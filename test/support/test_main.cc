// main() of the test binaries that hold several test files (quell_add_test, cmake/): each ctest
// entry runs one former test executable's files, chosen by the files the tests are defined in, so
// two files may use the same suite name and a test added to a file needs no filter edited.
//
//   binary --quell_source=test/core/evaluate_test.cc [--quell_source=...] [--quell_prefix=Sqlite/]
//
// --quell_source selects the tests whose TEST macro is in that file (a path relative to the
// repository); --quell_prefix keeps only the suites whose name starts so (the instantiation
// prefix of a parameterized suite). Selecting no test is a failure, not an empty pass.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

// __FILE__ as the compiler saw it: absolute, or relative to the build folder.
bool SameFile(std::string_view file, std::string_view source) {
  return file == source || (file.size() > source.size() && file.ends_with(source) &&
                            file[file.size() - source.size() - 1] == '/');
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::vector<std::string> sources;
  std::string prefix;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--quell_source=")) {
      sources.emplace_back(arg.substr(std::string_view("--quell_source=").size()));
    } else if (arg.starts_with("--quell_prefix=")) {
      prefix = arg.substr(std::string_view("--quell_prefix=").size());
    } else {
      std::fprintf(stderr, "test_main: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (sources.empty()) {
    return RUN_ALL_TESTS();
  }
  if (GTEST_FLAG_GET(filter) != "*") {
    std::fprintf(stderr, "test_main: --gtest_filter and --quell_source do not combine\n");
    return 2;
  }
  std::string filter;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(s);
    if (!std::string_view(suite.name()).starts_with(prefix)) {
      continue;
    }
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const ::testing::TestInfo& info = *suite.GetTestInfo(t);
      for (const std::string& source : sources) {
        if (SameFile(info.file(), source)) {
          filter += (filter.empty() ? "" : ":") + std::string(suite.name()) + "." + info.name();
          break;
        }
      }
    }
  }
  if (filter.empty()) {
    std::fprintf(stderr, "test_main: no test with suite prefix '%s' is defined in %s%s\n",
                 prefix.c_str(), sources.front().c_str(), sources.size() > 1 ? ", ..." : "");
    return 1;
  }
  GTEST_FLAG_SET(filter, filter);
  return RUN_ALL_TESTS();
}
