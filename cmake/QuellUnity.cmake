# With QUELL_UNITY_BUILD (cmake/QuellHelpers.cmake): what cannot share a batch. A batch is one
# translation unit, so two files of one library that define the same name in an anonymous
# namespace (each channel's kChannel, each command's exit codes) clash there. A new clash shows
# in a unity build (scripts/test) as "redefinition of ... {anonymous}::NAME" or as an ambiguous
# call: rename the name (a test file: name its namespace after the file, `namespace
# grouping_test {`), or list the file (or, where every file does it, the library) here.

# Libraries whose files each define the same names (each channel's kChannel, each receiver's
# field and error helpers, each command's exit codes). The test libraries are listed here, not
# file by file below: a fuzzer build has no test/ directory to set a file's property in.
foreach(target quell_channels quell_cli_commands quell_test_receivers quell_test_prometheus)
  if(TARGET ${target})
    set_target_properties(${target} PROPERTIES UNITY_BUILD OFF)
  endif()
endforeach()

# Files compiled alone, each beside a file of its library that defines the same name.
set(quell_unity_alone
  src/quell/adapters/inputs/datadog_payload.cc      # Invalid
  src/quell/adapters/templates/mustache_renderer.cc # Upper
  src/quell/app/metrics.cc                          # a member type from the anonymous namespace
  src/quell/app/operator_queries.cc                 # Bad
  src/quell/sim/routes_metrics.cc                   # Info
)
foreach(file IN LISTS quell_unity_alone)
  get_filename_component(dir ${PROJECT_SOURCE_DIR}/${file} DIRECTORY)
  if(EXISTS ${dir}/CMakeLists.txt)
    set_source_files_properties(${PROJECT_SOURCE_DIR}/${file} DIRECTORY ${dir}
                                PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
endforeach()

# Test files compiled alone (quell_test_objects puts a test binary's files in one unity target,
# <binary>_unity, and the property is set in that target's folder). None today: each clash was
# resolved by naming the later file's namespace after it. A fuzzer build has no test/, so there
# the lookup finds no target and sets nothing.
set(quell_unity_alone_tests)
foreach(file IN LISTS quell_unity_alone_tests)
  get_property(batch GLOBAL PROPERTY quell_unity_target:${PROJECT_SOURCE_DIR}/${file})
  if(batch)
    set_source_files_properties(${PROJECT_SOURCE_DIR}/${file} TARGET_DIRECTORY ${batch}
                                PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
endforeach()
