# The install tree, checked for real: `cmake --install` into a scratch prefix, the files present,
# the man page rendering with `man -l`, the bash completion loading, and `cpack -G DEB` producing a
# package that holds the binary. Run by ctest as: cmake -DBUILD=<dir> -DSCRATCH=<dir> -P check_install.cmake
file(REMOVE_RECURSE "${SCRATCH}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${SCRATCH}/usr" RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
foreach(f bin/kvplan share/man/man1/kvplan.1 share/bash-completion/completions/kvplan share/zsh/site-functions/_kvplan
          share/fish/vendor_completions.d/kvplan.fish share/doc/kvplan/README.md)
  if(NOT EXISTS "${SCRATCH}/usr/${f}")
    message(FATAL_ERROR "missing from the install tree: ${f}")
  endif()
endforeach()

execute_process(COMMAND "${SCRATCH}/usr/bin/kvplan" --version OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "kvplan [0-9.]+ \\(model catalog [0-9-]+\\)")
  message(FATAL_ERROR "installed kvplan --version: ${out}")
endif()

find_program(MAN man REQUIRED)
execute_process(COMMAND "${MAN}" -P cat -l "${SCRATCH}/usr/share/man/man1/kvplan.1"
                OUTPUT_VARIABLE page ERROR_VARIABLE warnings RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT page MATCHES "KVPLAN\\(1\\)" OR NOT page MATCHES "EXIT STATUS" OR NOT page MATCHES "check")
  message(FATAL_ERROR "man -l did not render kvplan.1 (${rc}): ${warnings}")
endif()

execute_process(COMMAND bash -c "source '${SCRATCH}/usr/share/bash-completion/completions/kvplan' && complete -p kvplan"
                OUTPUT_VARIABLE completion RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT completion MATCHES "-F _kvplan kvplan")
  message(FATAL_ERROR "the bash completion did not load: ${completion}")
endif()
execute_process(COMMAND bash -c "source '${SCRATCH}/usr/share/bash-completion/completions/kvplan' && COMP_WORDS=(kvplan check --fo) && COMP_CWORD=2 && _kvplan && echo \${COMPREPLY[@]}"
                OUTPUT_VARIABLE words RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT words MATCHES "--format")
  message(FATAL_ERROR "the bash completion did not complete 'kvplan check --fo': ${words}")
endif()
# Values too: the GPUs of the catalog after --gpu.
execute_process(COMMAND bash -c "source '${SCRATCH}/usr/share/bash-completion/completions/kvplan' && COMP_WORDS=(kvplan check --gpu H10) && COMP_CWORD=3 && _kvplan && echo \${COMPREPLY[@]}"
                OUTPUT_VARIABLE values RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT values MATCHES "H100-SXM" OR NOT values MATCHES "H100-NVL")
  message(FATAL_ERROR "the bash completion did not complete 'kvplan check --gpu H10': ${values}")
endif()

execute_process(COMMAND cpack -G DEB -B "${SCRATCH}/package" --config "${BUILD}/CPackConfig.cmake"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
file(GLOB debs "${SCRATCH}/package/*.deb")
if(NOT rc EQUAL 0 OR NOT debs)
  message(FATAL_ERROR "cpack -G DEB made no package (${rc}): ${err}")
endif()
execute_process(COMMAND dpkg-deb -c ${debs} OUTPUT_VARIABLE contents RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT contents MATCHES "usr/bin/kvplan" OR NOT contents MATCHES "usr/share/man/man1/kvplan.1")
  message(FATAL_ERROR "the .deb lacks the binary or the man page: ${contents}")
endif()
message(STATUS "install tree, man page, completions and .deb: ok")
