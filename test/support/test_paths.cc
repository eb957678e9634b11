#include "test_paths.h"

namespace quell::testing {

const char* QuellBinary() { return QUELL_TEST_QUELL_BINARY; }
const char* QuellSimBinary() { return QUELL_TEST_SIM_BINARY; }

std::string SourcePath(std::string_view relative) {
  std::string path = QUELL_TEST_SOURCE_DIR;
  path += '/';
  path += relative;
  return path;
}

}  // namespace quell::testing
