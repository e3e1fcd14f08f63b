// A short content hash of a program graph, recorded in compiled models, histories and
// exported weights so that a file can be traced back to the program it came from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/graph/graph.h"

namespace lsrl {

// 64-bit FNV-1a of `bytes` (not cryptographic: it detects mix-ups, not tampering).
uint64_t fnv1a64(std::string_view bytes);
// The same over bytes that come in pieces: fnv1a64(b, fnv1a64(a)) == fnv1a64(a + b).
uint64_t fnv1a64(std::string_view bytes, uint64_t hashSoFar);
// "fnv1a64:" followed by 16 lowercase hex digits.
std::string fnv1a64Text(std::string_view bytes);
std::string fnv1a64Text(uint64_t hash);  // of a hash computed in pieces

// The hash of the graph's saved text (docs/graph-format.md) without its layout and the
// groups' "expanded" flags, so that moving nodes or opening groups in the explorer does
// not change it: "fnv1a64:0123456789abcdef".
std::string graphHash(const Graph& g);

}  // namespace lsrl
