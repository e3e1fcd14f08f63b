// Whether this test binary runs under AddressSanitizer: its shadow memory is reserved up
// front (no address-space limit can be set), and it makes process-level tests of the real
// binary several times slower.
#pragma once

namespace lsrl::cli::test {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

}  // namespace lsrl::cli::test
