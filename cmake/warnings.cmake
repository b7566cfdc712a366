# kvplan_warnings: the warning set for kvplan's own targets (cmake-init's flags-gcc-clang set),
# as errors when KVPLAN_WERROR is on. Third-party code never links it.
add_library(kvplan_warnings INTERFACE)
target_compile_options(kvplan_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wold-style-cast
  -Wnon-virtual-dtor -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough
  $<$<BOOL:${KVPLAN_WERROR}>:-Werror>
)
