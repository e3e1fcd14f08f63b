# Warnings apply to our code only: third-party include dirs are SYSTEM.
add_library(lsrl_warnings INTERFACE)
target_compile_options(lsrl_warnings INTERFACE -Wall -Wextra)
# GCC 12 at -O3 misreports "literal" + std::to_string(n) as an overlapping memcpy (GCC
# bug 105329, fixed in 13), and, in units that include headers in another order (the
# precompiled ones), the same inlined basic_string::insert as a copy past the string or
# of more than PTRDIFF_MAX bytes (bugs 105651, 106199). -Wrestrict, -Wstringop-overflow
# and -Warray-bounds there say nothing about our code; clang's, in the sanitizer build,
# stay on.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(lsrl_warnings INTERFACE -Wno-restrict -Wno-stringop-overflow
                                                 -Wno-array-bounds)
endif()
if(LSRL_WERROR)
  target_compile_options(lsrl_warnings INTERFACE -Werror)
endif()

if(LSRL_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(LSRL_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "LSRL_FUZZ needs clang (libFuzzer)")
  endif()
endif()
# The code the fuzzers exercise carries libFuzzer's coverage instrumentation: the layers
# of core/ (cmake/LsrlLayers.cmake adds it to each), not the tests or the applications.
add_library(lsrl_fuzz_coverage INTERFACE)
if(LSRL_FUZZ)
  target_compile_options(lsrl_fuzz_coverage INTERFACE -fsanitize=fuzzer-no-link)
endif()
