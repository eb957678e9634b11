# Small helpers so each component's CMakeLists.txt is an explicit list of sources and deps.

set(QUELL_WARNINGS -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow
    -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual)
# g++ 12 at -O3 reports std::string copies as overlapping memcpy (GCC bug 105651): a false
# positive that would fail every Release build.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND QUELL_WARNINGS -Wno-restrict)
endif()
if(QUELL_WERROR)
  list(APPEND QUELL_WARNINGS -Werror)
endif()

# __FILE__ (gtest's failure lines, assert) as a path from the source root rather than from this
# clone's folder, which the unity batches' #include "/abs/path" would otherwise put into every
# test object: with it an object is the same in every clone and ccache shares it (scripts/test).
add_compile_options(-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=)

if(QUELL_SANITIZE)
  add_compile_options(-fsanitize=${QUELL_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${QUELL_SANITIZE})
endif()

# The libFuzzer build (fuzz/, scripts/fuzz): every library the fuzzers link is compiled with
# the fuzzer's coverage hooks and ASan+UBSan; only the fuzzers' own link adds libFuzzer's main.
if(QUELL_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "QUELL_BUILD_FUZZERS needs clang (CXX=clang++-14); this is "
                        "${CMAKE_CXX_COMPILER_ID}")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

function(quell_target_defaults target)
  target_compile_options(${target} PRIVATE ${QUELL_WARNINGS})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_BINARY_DIR}/src)
endfunction()

# quell_add_library(name SOURCES a.cc b.cc DEPS dep1 dep2 [PRIVATE_DEPS dep3])
#
# With QUELL_UNITY_BUILD (scripts/test turns it on), a library's sources are compiled
# QUELL_UNITY_BATCH at a time as one translation unit each, so the headers they share are parsed
# once per batch. A file that cannot share one (a name clash in an anonymous namespace) says so
# with set_source_files_properties(... SKIP_UNITY_BUILD_INCLUSION ON).
function(quell_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  quell_target_defaults(${name})
  set_target_properties(${name} PROPERTIES UNITY_BUILD ${QUELL_UNITY_BUILD}
                                           UNITY_BUILD_BATCH_SIZE ${QUELL_UNITY_BATCH})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# quell_add_test(name SOURCES a_test.cc DEPS lib LABELS unit [ENVIRONMENT K=V] [TIMEOUT s])
#
# One ctest entry `name` with those labels, environment and timeout. The sources are not linked
# into an executable of their own: `name` is an object library (so target_compile_definitions,
# target_include_directories and add_dependencies on it work as on an executable), linked with
# the others of the same layer (test/<layer>/...) and labels into one binary,
# quell_<layer>_<labels>_tests, whose main (test/support/test_main.cc) runs only the tests
# defined in `name`'s sources. Linking ~90 executables took most of a warm build; one binary per
# layer and label keeps the ctest entries.
# Build what ctest -R name runs: `--target quell_label_<label>` (every binary holding a test
# with that label; scripts/test builds quell_label_unit under ASan) or the binary itself.
#
# With QUELL_UNITY_BUILD, the test files were ~3/4 of a cold build's compile time, each
# re-parsing gtest, nlohmann-json and quell's headers: there the sources go into one unity
# object library per binary, <binary>_unity (see quell_test_objects), QUELL_TEST_UNITY_BATCH
# files a translation unit. A test's TEST macros still record its own file (the batch
# #includes it by absolute path), so --quell_source selects as before.
function(quell_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS;ENVIRONMENT" ${ARGN})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  string(REGEX REPLACE "^test/([^/]+).*" "\\1" layer "${rel}")
  string(REGEX REPLACE "[^A-Za-z0-9]+" "_" layer "${layer}")
  string(JOIN _ label_part ${ARG_LABELS})
  set(binary quell_${layer}_${label_part}_tests)
  quell_test_objects(${name} ${binary} SOURCES ${ARG_SOURCES} DEPS ${ARG_DEPS})
  quell_test_binary_add(${binary} ${name} ${ARG_LABELS})
  quell_test_selectors(selectors ${ARG_SOURCES})
  add_test(NAME ${name} COMMAND ${binary} ${selectors})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
  if(ARG_ENVIRONMENT)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ARG_ENVIRONMENT}")
  endif()
endfunction()

# quell_test_objects(name binary SOURCES a_test.cc DEPS lib...): the object library `name` that
# a test's CMakeLists.txt adds definitions, include folders and dependencies to.
#
# Without QUELL_UNITY_BUILD it compiles the sources itself. With it, `name` holds no source: the
# sources compile in <binary>_unity, which takes each member's deps (through linking `name`) and
# the definitions and include folders set on `name` (generator expressions, so what is set
# after this call counts too). So a definition set for one test is seen by every file of its
# binary: all of them agree on the values (QUELL_BINARY, QUELL_SOURCE_DIR), and two different
# values for one macro fail the build as a redefinition. A file that cannot share a batch is
# listed in cmake/QuellUnity.cmake.
function(quell_test_objects name binary)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  if(NOT QUELL_UNITY_BUILD)
    add_library(${name} OBJECT ${ARG_SOURCES})
    quell_target_defaults(${name})
    target_link_libraries(${name} PUBLIC ${ARG_DEPS} GTest::gtest quell_test_paths)
    return()
  endif()
  # An object library needs a source: this header compiles to nothing.
  set(entry ${PROJECT_BINARY_DIR}/test/unity_entry.h)
  file(CONFIGURE OUTPUT ${entry} CONTENT "// quell_test_objects: the sources are in <binary>_unity\n")
  add_library(${name} OBJECT ${entry})
  quell_target_defaults(${name})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} GTest::gtest quell_test_paths)
  set(batch ${binary}_unity)
  if(NOT TARGET ${batch})
    add_library(${batch} OBJECT)
    quell_target_defaults(${batch})
    set_target_properties(${batch} PROPERTIES UNITY_BUILD ON
                                              UNITY_BUILD_BATCH_SIZE ${QUELL_TEST_UNITY_BATCH})
  endif()
  set(sources)
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(source_abs ${source} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND sources ${source_abs})
    # cmake/QuellUnity.cmake looks a test file's batch target up here.
    set_property(GLOBAL PROPERTY quell_unity_target:${source_abs} ${batch})
  endforeach()
  target_sources(${batch} PRIVATE ${sources})
  target_link_libraries(${batch} PRIVATE ${name})
  target_compile_definitions(${batch} PRIVATE $<TARGET_PROPERTY:${name},COMPILE_DEFINITIONS>)
  target_include_directories(${batch} PRIVATE $<TARGET_PROPERTY:${name},INCLUDE_DIRECTORIES>)
endfunction()

# quell_test_binary_add(binary object_library label...): links the tests' object library into
# the test binary (made on first use, with test/support/test_main.cc as main), and the binary
# into the umbrella target quell_label_<label> of each label.
function(quell_test_binary_add binary objects)
  if(NOT TARGET ${binary})
    if(NOT TARGET quell_test_main)
      add_library(quell_test_main OBJECT ${PROJECT_SOURCE_DIR}/test/support/test_main.cc)
      quell_target_defaults(quell_test_main)
      target_link_libraries(quell_test_main PUBLIC GTest::gtest)
    endif()
    add_executable(${binary})
    target_link_libraries(${binary} PRIVATE quell_test_main)
    set_target_properties(${binary} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/test)
    if(TARGET ${binary}_unity)
      target_link_libraries(${binary} PRIVATE ${binary}_unity)
    endif()
  endif()
  target_link_libraries(${binary} PRIVATE ${objects})
  foreach(label IN LISTS ARGN)
    if(NOT TARGET quell_label_${label})
      add_custom_target(quell_label_${label})
    endif()
    add_dependencies(quell_label_${label} ${binary})
  endforeach()
endfunction()

# quell_test_selectors(out source...): the test_main arguments that select the tests defined in
# those sources (paths relative to the current source folder).
function(quell_test_selectors out)
  set(selectors)
  foreach(source IN LISTS ARGN)
    get_filename_component(source_abs ${source} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    file(RELATIVE_PATH source_rel ${PROJECT_SOURCE_DIR} ${source_abs})
    list(APPEND selectors --quell_source=${source_rel})
  endforeach()
  set(${out} ${selectors} PARENT_SCOPE)
endfunction()
