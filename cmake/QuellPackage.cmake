# The Debian package (scripts/package, docs/operations.md "Install from the Debian package"),
# built by CPack's DEB generator from any configured tree: the programs (install's default
# component) and the `system` component, whose files go to absolute system paths (/etc,
# /lib/systemd) and which a plain `cmake --install --prefix P` therefore never installs
# (EXCLUDE_FROM_ALL). The `prefix` component (the unit and example under the prefix) stays out
# of the package, where /lib/systemd and /etc hold them.
#
#   /usr/bin/quell, /usr/bin/quell-sim     the programs (`quell demo` needs nothing else)
#   /lib/systemd/system/quell.service      the hardened unit (User=quell, ExecReload = SIGHUP)
#   /etc/quell/quell.yaml                  conffile: examples/quell.yaml, which refuses to
#                                          start until INFRAI_API_KEY is set
#   /etc/default/quell                     conffile: the secrets, 0640 root:quell (postinst)
#   /usr/share/man/man1/quell*.1.gz        each command's --help as a manual page (help2man)
#   /usr/share/doc/quell/                  copyright, changelog.gz, operations and configuration
#
# Depends are computed by dpkg-shlibdeps from the binaries' shared libraries, plus adduser for
# the maintainer scripts (packaging/deb/), which create the user and /var/lib/quell and remove
# them on purge only.

set(system COMPONENT system EXCLUDE_FROM_ALL)
install(FILES packaging/quell.service DESTINATION /lib/systemd/system ${system})
install(FILES examples/quell.yaml DESTINATION /etc/quell ${system})
install(FILES packaging/deb/quell.default DESTINATION /etc/default RENAME quell
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ ${system})
install(FILES docs/operations.md docs/configuration.md packaging/deb/copyright
        DESTINATION share/doc/quell ${system})

configure_file(packaging/deb/changelog.in ${CMAKE_BINARY_DIR}/packaging/changelog @ONLY)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/packaging/changelog.gz
  COMMAND gzip -9n -c ${CMAKE_BINARY_DIR}/packaging/changelog > ${CMAKE_BINARY_DIR}/packaging/changelog.gz
  DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog)
add_custom_target(quell_package_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
install(FILES ${CMAKE_BINARY_DIR}/packaging/changelog.gz DESTINATION share/doc/quell ${system})

# The manual pages are made from the installed programs' own --help, at install time, so they
# can never disagree with the binary in the package.
install(CODE "set(QUELL_BINARY \"$<TARGET_FILE:quell>\")" ${system})
install(SCRIPT packaging/man_pages.cmake ${system})

set(CPACK_GENERATOR DEB)
set(CPACK_COMPONENTS_ALL Unspecified system)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_PACKAGE_NAME quell)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "quell developers <quell@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "one durable incident per actionable condition, notified once")
set(CPACK_PACKAGE_DESCRIPTION
    "quell polls an error tracker (Infrai) and metrics (Prometheus), takes pushed alerts\n\
(Alertmanager, Grafana), keeps one incident per stable dedupe key and records every\n\
transition in an outbox in the same transaction, so each page is sent once: on open, after\n\
a cooldown, and on resolve after a streak of healthy polls. SQLite by default, PostgreSQL\n\
for several instances; webhooks, Slack, e-mail, SMS, PagerDuty, Opsgenie, Teams and more.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "file:///usr/share/doc/quell/operations.md")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/packaging/deb/conffiles ${CMAKE_SOURCE_DIR}/packaging/deb/postinst
    ${CMAKE_SOURCE_DIR}/packaging/deb/prerm ${CMAKE_SOURCE_DIR}/packaging/deb/postrm)
include(CPack)
