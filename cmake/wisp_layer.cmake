# wisp_layer(NAME [DEPENDS layer targets...] [PUBLIC_LIBS ...] [PRIVATE_LIBS ...] [SOURCES extra...]
#            [EXCLUDE regex]): the static library wisp_NAME of src/NAME/ (recursively), exported as
# wisp::NAME. It compiles against views (build/layers/) that hold only include/wisp/NAME and the
# views of the layers it DEPENDS on, and src/NAME for its private headers: an include of a layer
# it does not declare fails to build, which is what keeps the layers pointing down.
set(WISP_VIEWS ${PROJECT_BINARY_DIR}/layers)

# A view holding only the given headers of include/wisp/ (as wisp/FILE).
function(wisp_header_view name)
  file(MAKE_DIRECTORY ${WISP_VIEWS}/${name}/include/wisp)
  foreach(header ${ARGN})
    get_filename_component(file ${header} NAME)
    file(CREATE_LINK ${header} ${WISP_VIEWS}/${name}/include/wisp/${file} SYMBOLIC)
  endforeach()
endfunction()

# Compile time: most of a layer's compile time is spent parsing the same standard and fmt headers
# and optimising; the sources of a target compile in batches of a few files (CMake's unity build,
# WISP_UNITY_BUILD) against one precompiled header of those headers. File-local helpers therefore
# need names unique within their layer (an anonymous namespace does not separate batch members).
function(wisp_compile_fast target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${WISP_UNITY_BUILD} UNITY_BUILD_BATCH_SIZE 4)
  target_precompile_headers(${target} PRIVATE <algorithm> <cstdint> <filesystem> <functional> <map> <memory>
                            <optional> <string> <unordered_map> <vector> <fmt/format.h>)
endfunction()

function(wisp_layer name)
  cmake_parse_arguments(L "" "" "DEPENDS;PUBLIC_LIBS;PRIVATE_LIBS;SOURCES;EXCLUDE" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp)
  foreach(pattern ${L_EXCLUDE})
    list(FILTER sources EXCLUDE REGEX "${pattern}")
  endforeach()
  set(view ${WISP_VIEWS}/${name})
  file(MAKE_DIRECTORY ${view}/include/wisp ${view}/src)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/wisp/${name} ${view}/include/wisp/${name} SYMBOLIC)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${name} ${view}/src/${name} SYMBOLIC)
  add_library(wisp_${name} STATIC ${sources} ${L_SOURCES})
  add_library(wisp::${name} ALIAS wisp_${name})
  set_target_properties(wisp_${name} PROPERTIES EXPORT_NAME ${name} POSITION_INDEPENDENT_CODE ON)
  target_include_directories(wisp_${name}
    PUBLIC $<BUILD_INTERFACE:${view}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${view}/src)
  target_link_libraries(wisp_${name} PUBLIC wisp_core ${L_DEPENDS} ${L_PUBLIC_LIBS} PRIVATE ${L_PRIVATE_LIBS})
  wisp_compile_fast(wisp_${name})
endfunction()
