# Warnings apply to our code only: third-party include dirs are SYSTEM.
add_library(lsrl_warnings INTERFACE)
target_compile_options(lsrl_warnings INTERFACE -Wall -Wextra)
# GCC 12 at -O3 misreports "literal" + std::to_string(n) as an overlapping memcpy
# (GCC bug 105329, fixed in 13): -Wrestrict there says nothing about our code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(lsrl_warnings INTERFACE -Wno-restrict)
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
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
