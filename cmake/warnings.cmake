# kvplan_warnings: the warning set for kvplan's own targets (cmake-init's flags-gcc-clang set),
# as errors when KVPLAN_WERROR is on. Third-party code never links it.
add_library(kvplan_warnings INTERFACE)
target_compile_options(kvplan_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wold-style-cast
  -Wnon-virtual-dtor -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough
  $<$<BOOL:${KVPLAN_WERROR}>:-Werror>
  # GCC 12 at -O2 reports -Warray-bounds inside libstdc++'s std::map when nlohmann::json objects
  # are built (a false positive of GCC 12's optimizer); later GCCs do not.
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-array-bounds>
  # GCC 12 at -O3 reports -Wrestrict inside libstdc++'s char_traits for `"literal" + std::string`
  # (GCC bug 105651, fixed in GCC 13).
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
)
