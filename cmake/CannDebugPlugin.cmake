# cann_debug_add_plugin(<target> SOURCES ... [LIBRARIES ...] [PACKAGE_SOURCE file] [OUTPUT_DIR dir] [NO_INSTALL])
#
# Builds one plugin package (a MODULE library) with hidden visibility, linked against the SDK support
# library, into the plugin directory the host searches in the build tree (or OUTPUT_DIR).
#
# The component sources (every source but PACKAGE_SOURCE, default package.cpp, the file with
# CANN_DEBUG_PACKAGE) are compiled once into the OBJECT library <target>_objects, which the package links
# and which tests link too (a package whose sources hold no separate package source gets no objects
# library): `target_link_libraries(my_test PRIVATE <target>_objects)` gives a test the components, the
# plugin folder's headers and LIBRARIES, without compiling a source twice. A README.md in the plugin's
# folder is copied beside the package (see below).
if(NOT DEFINED CANN_DEBUG_PLUGIN_OUTPUT_DIR)
  set(CANN_DEBUG_PLUGIN_OUTPUT_DIR "${CMAKE_BINARY_DIR}/lib/cann-debug/plugins")
endif()
if(NOT DEFINED CANN_DEBUG_PLUGIN_INSTALL_DIR)
  set(CANN_DEBUG_PLUGIN_INSTALL_DIR "lib/cann-debug/plugins")
endif()

function(cann_debug_add_plugin target)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIR;PACKAGE_SOURCE" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CANN_DEBUG_PLUGIN_OUTPUT_DIR}")
  endif()
  if(NOT ARG_PACKAGE_SOURCE)
    set(ARG_PACKAGE_SOURCE package.cpp)
  endif()
  set(_package "")
  set(_components "")
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(_name "${src}" NAME)
    if(src STREQUAL ARG_PACKAGE_SOURCE OR _name STREQUAL ARG_PACKAGE_SOURCE)
      list(APPEND _package "${src}")
    else()
      list(APPEND _components "${src}")
    endif()
  endforeach()
  if(NOT _package OR NOT _components)
    # No separate package source (or nothing but it): one MODULE of all sources, no objects library.
    set(_package ${ARG_SOURCES})
    add_library(${target} MODULE ${_package})
    target_link_libraries(${target} PRIVATE cann_debug::sdk ${ARG_LIBRARIES})
  else()
    add_library(${target}_objects OBJECT ${_components})
    target_link_libraries(${target}_objects PUBLIC cann_debug::sdk ${ARG_LIBRARIES})
    target_include_directories(${target}_objects PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
    set_target_properties(${target}_objects PROPERTIES
      POSITION_INDEPENDENT_CODE ON
      CXX_VISIBILITY_PRESET hidden
      VISIBILITY_INLINES_HIDDEN ON)
    # In the source tree every package's components share one precompiled header (plugins/CMakeLists.txt).
    if(TARGET cann_debug_plugin_pch)
      target_precompile_headers(${target}_objects REUSE_FROM cann_debug_plugin_pch)
    endif()
    add_library(${target} MODULE ${_package})
    target_link_libraries(${target} PRIVATE ${target}_objects)
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME "cdp_${target}"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIR}")
  # Unresolved symbols must fail at link time, not when the host opens the package: --no-undefined, or what
  # this project's build chose (none under clang's sanitizers, whose runtime the host executable carries).
  if(DEFINED CANN_DEBUG_SHARED_LINK_OPTIONS)
    target_link_options(${target} PRIVATE ${CANN_DEBUG_SHARED_LINK_OPTIONS})
  else()
    target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  endif()
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION ${CANN_DEBUG_PLUGIN_INSTALL_DIR})
  endif()
  # The package's README.md travels beside it as cdp_<target>.README.md (build tree and install), where
  # `cann-debug inspect TYPE --readme` finds it.
  if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/README.md")
    configure_file("${CMAKE_CURRENT_SOURCE_DIR}/README.md" "${ARG_OUTPUT_DIR}/cdp_${target}.README.md" COPYONLY)
    if(NOT ARG_NO_INSTALL)
      install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/README.md" DESTINATION ${CANN_DEBUG_PLUGIN_INSTALL_DIR}
              RENAME "cdp_${target}.README.md")
    endif()
  endif()
endfunction()

# cann_debug_add_plugin_library(<target> SOURCES ... [LIBRARIES ...])
#
# A static, position-independent library that several plugin packages share (each package links its own
# copy); its folder is on the include path of whoever links it.
function(cann_debug_add_plugin_library target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_library(${target} STATIC ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC cann_debug::sdk ${ARG_LIBRARIES})
endfunction()
