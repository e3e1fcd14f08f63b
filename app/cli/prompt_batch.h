// `lsrl prompt tok2tok --random K --count N -o IN.npy|IN.safetensors|IN.json`: N seeded
// random tok2tok prompts in one file, prompt i being the one `lsrl prompt tok2tok --random K
// --seed S+i` writes (its own dictionary and query). All have T = L·(2K + 1) tokens of width
// 1, so they form one N × T × 1 array (docs/input-format.md, "Binary batches"): '<f4' / F32
// (F64 when the vocabulary exceeds 2^24, which F32 cannot count exactly). A .safetensors
// file also holds "expected" (N × L, each prompt's answer) and the parameters as metadata; a
// .json file is the same batch in the JSON form ({"batch": [...]}, "expected" beside it).
// The prompts are drawn and written a block at a time: memory is a block plus the N × L
// expected tokens, whatever N is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lsrl::cli {

struct Tok2tokBatch {
  int entries = 1;  // K
  int L = 3;
  int vocab = 10;
  uint64_t seed = 0;  // prompt i uses seed + i (mod 2^64)
  size_t count = 1;   // N
};

// Returns the tokens per prompt (T). Throws lsrl::Error naming the path (format, K > vocab^L,
// an unwritable target), and then writes nothing.
size_t writeTok2tokBatch(const Tok2tokBatch& batch, const std::string& path);

}  // namespace lsrl::cli
