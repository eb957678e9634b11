#pragma once

#include <string>
#include <string_view>

namespace quell::testing {

// Where the tests find quell's binaries and files of the source tree. They are compiled into one
// file (test_paths.cc) rather than into each test, so that every other test object is the same
// in any clone folder and the compiler cache shares it between clones.
const char* QuellBinary();     // the `quell` built beside the tests
const char* QuellSimBinary();  // quell-sim
// A file of the source tree, `relative` to its root: SourcePath("examples/quell.yaml").
std::string SourcePath(std::string_view relative);

}  // namespace quell::testing
