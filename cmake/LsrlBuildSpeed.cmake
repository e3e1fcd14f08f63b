# What keeps a build short on few cores (docs/building.md):
#  - unity builds: each target compiles its sources in batches of a few files, so the
#    headers they share are parsed, and their templates instantiated, once per batch;
#  - the test executables at -O1: their own code is assertions and set-up (what they
#    test, the libraries, keeps the build type's optimisation);
#  - ccache, when it is installed, for rebuilds of the same sources;
#  - precompiled headers for the two heaviest third-party stacks the top-level targets
#    parse in nearly every unit: Qt (the explorer and its tests) and GoogleTest.
option(LSRL_UNITY "Compile each target's sources in batches (unity build)" ON)
set(LSRL_UNITY_BATCH 16 CACHE STRING "Sources per unity batch")
option(LSRL_CCACHE "Compile through ccache when it is installed" ON)
option(LSRL_PCH "Precompile the Qt and GoogleTest headers" ON)

# Every target defined after this point. A source that must stay alone (explicit
# template instantiations another unit declares extern, for one) sets
# SKIP_UNITY_BUILD_INCLUSION; CMake keeps sources with their own compile definitions
# alone by itself.
if(LSRL_UNITY)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE ${LSRL_UNITY_BATCH})
  # GCC takes every source a batch includes for a header, where a class with a member of
  # a file-local (anonymous-namespace) type would break the one-definition rule across
  # includers; a source is included once, so the warning says nothing there.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(lsrl_warnings INTERFACE -Wno-subobject-linkage)
  endif()
endif()

# lsrl_test_optimization(<target>): a test executable's own code at -O1 (the last -O on
# the command line wins), in every optimised build type.
function(lsrl_test_optimization target)
  target_compile_options(${target} PRIVATE $<$<NOT:$<CONFIG:Debug>>:-O1>)
endfunction()

if(LSRL_CCACHE)
  find_program(LSRL_CCACHE_PROGRAM ccache)
  if(LSRL_CCACHE_PROGRAM)
    # Without this sloppiness ccache never reuses a unit compiled with a precompiled header.
    set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        ${LSRL_CCACHE_PROGRAM})
    message(STATUS "ccache: ${LSRL_CCACHE_PROGRAM}")
  endif()
endif()

# GoogleTest plus the standard and JSON headers most test units use.
set(LSRL_GTEST_PCH_HEADERS <gtest/gtest.h> <nlohmann/json.hpp> <algorithm> <cmath>
    <filesystem> <fstream> <functional> <map> <random> <set> <string> <vector>)
# The Qt classes most explorer units use (counted over app/studio and tests/studio).
set(LSRL_QT_PCH_HEADERS <QApplication> <QCheckBox> <QComboBox> <QDir> <QElapsedTimer>
    <QFileDialog> <QFileInfo> <QHBoxLayout> <QImage> <QLabel> <QLineEdit> <QPainter>
    <QPushButton> <QSpinBox> <QString> <QTimer> <QVBoxLayout> <QWidget>
    <QChartView> <QLineSeries> <QValueAxis>
    <algorithm> <functional> <memory> <string> <vector>)

# lsrl_precompile(<target> GTEST|QT [QT GTEST]): precompiles the named header sets for
# `target`. lsrl_precompile(<target> REUSE <other>) uses <other>'s (same flags needed:
# a compiler that finds them different ignores it and reads the headers).
function(lsrl_precompile target)
  if(NOT LSRL_PCH)
    return()
  endif()
  if(ARGV1 STREQUAL "REUSE")
    target_precompile_headers(${target} REUSE_FROM ${ARGV2})
    return()
  endif()
  set(headers)
  foreach(set ${ARGN})
    list(APPEND headers ${LSRL_${set}_PCH_HEADERS})
  endforeach()
  list(REMOVE_DUPLICATES headers)
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
