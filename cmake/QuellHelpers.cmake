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

if(QUELL_SANITIZE)
  add_compile_options(-fsanitize=${QUELL_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${QUELL_SANITIZE})
endif()

function(quell_target_defaults target)
  target_compile_options(${target} PRIVATE ${QUELL_WARNINGS})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_BINARY_DIR}/src)
endfunction()

# quell_add_library(name SOURCES a.cc b.cc DEPS dep1 dep2 [PRIVATE_DEPS dep3])
function(quell_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  quell_target_defaults(${name})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# quell_add_test(name SOURCES a_test.cc DEPS lib LABELS unit [ENVIRONMENT K=V])
function(quell_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS;ENVIRONMENT" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  quell_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
  if(ARG_ENVIRONMENT)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ARG_ENVIRONMENT}")
  endif()
endfunction()
