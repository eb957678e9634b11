# Install step of the Debian package (cmake/QuellPackage.cmake): one manual page per command,
# quell(1), quell-run(1), quell-incidents-list(1), ..., made by help2man from the installed
# binary's own --help, so a page can never disagree with the program it ships with. The
# commands are found by walking each --help's Subcommands section. Needs QUELL_BINARY.
if(NOT QUELL_BINARY)
  message(FATAL_ERROR "man_pages.cmake: QUELL_BINARY is not set")
endif()
find_program(HELP2MAN help2man REQUIRED)
set(man_dir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/share/man/man1")
file(MAKE_DIRECTORY "${man_dir}")
execute_process(COMMAND "${QUELL_BINARY}" --version OUTPUT_VARIABLE version_line
                OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
# "quell 0.1.0 (rev)": help2man takes the page's name from the program's file name below.
string(REGEX REPLACE "^quell " "" version "${version_line}")

# man_page(WORDS...): the page of `quell WORDS... --help`, then those of its subcommands.
function(man_page)
  set(words ${ARGN})
  execute_process(COMMAND "${QUELL_BINARY}" ${words} --help OUTPUT_VARIABLE help
                  COMMAND_ERROR_IS_FATAL ANY)
  string(REPLACE ";" "-" suffix "${words}")
  string(REPLACE ";" " " spaced "${words}")
  set(page "quell")
  if(suffix)
    set(page "quell-${suffix}")
  endif()
  # help2man runs the program it is given with --help and names the page after its file: a
  # tiny script called quell-run stands for `quell run`.
  set(wrapper_dir "${CMAKE_CURRENT_BINARY_DIR}/man-wrappers")
  file(MAKE_DIRECTORY "${wrapper_dir}")
  set(wrapper "${wrapper_dir}/${page}")
  file(WRITE "${wrapper}" "#!/bin/sh\nexec \"${QUELL_BINARY}\" ${spaced} \"$@\"\n")
  file(CHMOD "${wrapper}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  string(REGEX MATCH "^[^\n]*" first_line "${help}")
  execute_process(
    COMMAND "${HELP2MAN}" --no-info --no-discard-stderr "--version-string=${page} ${version}"
            "--name=${first_line}" "--manual=quell manual" "--source=quell"
            "--output=${man_dir}/${page}.1" "${wrapper}"
    COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND gzip -9nf "${man_dir}/${page}.1" COMMAND_ERROR_IS_FATAL ANY)
  file(REMOVE "${wrapper}")

  string(FIND "${help}" "Subcommands:" at)
  if(at EQUAL -1)
    return()
  endif()
  string(SUBSTRING "${help}" ${at} -1 rest)
  string(REPLACE "\n" ";" lines "${rest}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^  ([a-z][a-z-]*)( |$)")
      man_page(${words} ${CMAKE_MATCH_1})
    endif()
  endforeach()
endfunction()

man_page()
