# Third-party libraries, all from Debian 12 packages (see scripts/deps.txt).
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(PkgConfig REQUIRED)
# libzip: the .npz weight export (core/io/npz.cpp).
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)

# e-antic (exact real embedded number fields) and its stack: FLINT, Arb, GMP.
find_path(EANTIC_INCLUDE_DIR e-antic/renf_elem_class.hpp REQUIRED)
find_path(FLINT_INCLUDE_DIR flint/arith.h REQUIRED)
foreach(lib eanticxx eantic flint-arb flint gmpxx gmp mpfr)
  string(REPLACE "-" "_" var "LIB_${lib}")
  find_library(${var} ${lib} REQUIRED)
  list(APPEND LSRL_EXACT_LIBS ${${var}})
endforeach()
add_library(lsrl_exact_deps INTERFACE)
target_include_directories(lsrl_exact_deps SYSTEM INTERFACE ${EANTIC_INCLUDE_DIR} ${FLINT_INCLUDE_DIR}/flint)
target_link_libraries(lsrl_exact_deps INTERFACE ${LSRL_EXACT_LIBS})

if(LSRL_WITH_TESTS)
  find_package(GTest REQUIRED)
endif()
if(LSRL_WITH_BENCH)
  find_package(benchmark QUIET)
endif()
