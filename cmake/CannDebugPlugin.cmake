# cann_debug_add_plugin(<target> SOURCES ... [LIBRARIES ...] [OUTPUT_DIR dir])
#
# Builds one plugin package (a MODULE library) with hidden visibility, linked against the SDK support
# library, into the plugin directory the host searches in the build tree (or OUTPUT_DIR).
set(CANN_DEBUG_PLUGIN_OUTPUT_DIR "${CMAKE_BINARY_DIR}/lib/cann-debug/plugins" CACHE INTERNAL "")
set(CANN_DEBUG_PLUGIN_INSTALL_DIR "lib/cann-debug/plugins" CACHE INTERNAL "")

function(cann_debug_add_plugin target)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIR" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CANN_DEBUG_PLUGIN_OUTPUT_DIR}")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE cann_debug::sdk ${ARG_LIBRARIES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME "cdp_${target}"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIR}")
  # Unresolved symbols must fail at link time, not when the host opens the package.
  target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION ${CANN_DEBUG_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
