# `cmake --install` into a fresh prefix yields what packaging promises: both binaries, the
# example config and the systemd unit; and the installed quell runs and names its revision.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
foreach(f bin/quell bin/quell-sim share/quell/examples/quell.yaml lib/systemd/system/quell.service
    share/doc/quell/operations.md)
  if(NOT EXISTS "${PREFIX}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
file(READ "${PREFIX}/lib/systemd/system/quell.service" unit)
foreach(line "Type=simple" "ExecStart=/usr/bin/quell run -c /etc/quell/quell.yaml"
    "ExecReload=/bin/kill -HUP $MAINPID" "Restart=on-failure" "StateDirectory=quell"
    "WorkingDirectory=/var/lib/quell" "NoNewPrivileges=yes" "ProtectSystem=strict"
    "SystemCallFilter=@system-service" "CapabilityBoundingSet=\n"
    "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX" "MemoryDenyWriteExecute=yes")
  string(FIND "${unit}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "quell.service lacks ${line}")
  endif()
endforeach()
execute_process(COMMAND "${PREFIX}/bin/quell" --version OUTPUT_VARIABLE version RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT version MATCHES "^quell [0-9]+\\.[0-9]+\\.[0-9]+ \\(.+\\)")
  message(FATAL_ERROR "installed quell --version: ${rc} ${version}")
endif()
file(REMOVE_RECURSE "${PREFIX}")
