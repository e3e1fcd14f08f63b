# The layers of core/ (docs/architecture.md, "Layers"): each folder is its own static
# library, declared bottom-up with the folders it may use. The build enforces it:
#  - a layer can only name layers declared before it, so the declarations cannot form a
#    cycle (configuring fails, naming both folders);
#  - a layer's sources see only its own headers and those of the layers below it: each
#    layer's folder is published on its own include root (a link under
#    <build>/layers/<folder>/core/), and a target gets the roots of what it links. An
#    include of a folder the layer did not declare fails to compile ("No such file").
set(LSRL_LAYER_ROOT ${CMAKE_BINARY_DIR}/layers)

# Publishes <top>/<folder>'s headers (core/io, app/cli, ...) to `target` and whatever links
# it, on an include root that holds that folder alone: <roots>/<folder>/<top>/<folder>.
function(lsrl_publish_headers target roots top folder)
  set(root ${roots}/${folder})
  file(MAKE_DIRECTORY ${root}/${top})
  if(NOT EXISTS ${root}/${top}/${folder})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${top}/${folder} ${root}/${top}/${folder} SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC ${root})
endfunction()

# Publishes core/<folder>'s headers to `target` and whatever links it.
function(lsrl_publish_layer_headers target folder)
  lsrl_publish_headers(${target} ${LSRL_LAYER_ROOT} core ${folder})
endfunction()

# The same for a library of app/ (docs/architecture.md, "The applications' libraries"):
# app/layout sees core only, app/cli core and layout, so that an include of app/studio
# there fails to compile.
function(lsrl_publish_app_headers target folder)
  lsrl_publish_headers(${target} ${CMAKE_BINARY_DIR}/app-roots app ${folder})
endfunction()

# Checks that every layer `folder` names is declared already.
function(lsrl_check_layer_order folder)
  foreach(dep ${ARGN})
    if(NOT TARGET lsrl_${dep})
      message(FATAL_ERROR "core/${folder} uses core/${dep}, which is not declared below it "
                          "(core/CMakeLists.txt): that is an upward dependency or a cycle")
    endif()
  endforeach()
endfunction()

# lsrl_layer(<folder> [USES <lower folders>...]): the library lsrl_<folder> from
# core/<folder>/**.cpp, linking the layers it uses.
function(lsrl_layer folder)
  cmake_parse_arguments(LAYER "" "" "USES" ${ARGN})
  lsrl_check_layer_order(${folder} ${LAYER_USES})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/core/${folder}/*.cpp)
  add_library(lsrl_${folder} STATIC ${sources})
  lsrl_publish_layer_headers(lsrl_${folder} ${folder})
  list(TRANSFORM LAYER_USES PREPEND lsrl_)
  target_link_libraries(lsrl_${folder} PUBLIC ${LAYER_USES} PRIVATE lsrl_warnings lsrl_fuzz_coverage)
  # Linked into the Python extension module (app/python), a shared object.
  if(LSRL_WITH_PYTHON AND NOT LSRL_SANITIZE)
    set_target_properties(lsrl_${folder} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
  set_property(GLOBAL APPEND PROPERTY LSRL_LAYERS lsrl_${folder})
endfunction()
