# Installation like a real tool: the binary, its man page and shell completions, and a .deb.
# The man page and completions are generated at build time by the binary itself
# (`kvplan generate man|bash|zsh|fish`), from the same CLI11 definitions that print --help.
include(GNUInstallDirs)

set(KVPLAN_SHARE "${CMAKE_CURRENT_BINARY_DIR}/share")
set(KVPLAN_GENERATED
  "${KVPLAN_SHARE}/man/man1/kvplan.1"
  "${KVPLAN_SHARE}/bash-completion/completions/kvplan"
  "${KVPLAN_SHARE}/zsh/site-functions/_kvplan"
  "${KVPLAN_SHARE}/fish/vendor_completions.d/kvplan.fish")
add_custom_command(
  OUTPUT ${KVPLAN_GENERATED}
  COMMAND ${CMAKE_COMMAND} -E make_directory "${KVPLAN_SHARE}/man/man1" "${KVPLAN_SHARE}/bash-completion/completions"
          "${KVPLAN_SHARE}/zsh/site-functions" "${KVPLAN_SHARE}/fish/vendor_completions.d"
  COMMAND kvplan generate man -o "${KVPLAN_SHARE}/man/man1/kvplan.1"
  COMMAND kvplan generate bash -o "${KVPLAN_SHARE}/bash-completion/completions/kvplan"
  COMMAND kvplan generate zsh -o "${KVPLAN_SHARE}/zsh/site-functions/_kvplan"
  COMMAND kvplan generate fish -o "${KVPLAN_SHARE}/fish/vendor_completions.d/kvplan.fish"
  DEPENDS kvplan
  COMMENT "Generating kvplan.1 and shell completions"
  VERBATIM)
add_custom_target(kvplan_docs ALL DEPENDS ${KVPLAN_GENERATED})

install(TARGETS kvplan RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES "${KVPLAN_SHARE}/man/man1/kvplan.1" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES "${KVPLAN_SHARE}/bash-completion/completions/kvplan"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES "${KVPLAN_SHARE}/zsh/site-functions/_kvplan" DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
install(FILES "${KVPLAN_SHARE}/fish/vendor_completions.d/kvplan.fish"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# `cpack -G DEB` builds kvplan_<version>_<arch>.deb. The binary links libfmt dynamically (Debian's
# libfmt-dev ships the shared library), the C++ runtime of g++ 12 and glibc.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kvplan)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "kvplan developers")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfmt9, libstdc++6 (>= 12), libc6 (>= 2.34), libgcc-s1")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
