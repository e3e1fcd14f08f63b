// Character-level language modelling ("char_lm"), a token task of the Lattice token model
// (docs/models.md, "Character-level language modelling (char_lm)"): predict the next
// character of a text at every position.
//
// The corpus is the file or folder `text` names, by default /usr/share/games/fortunes
// (Debian's `fortunes`); a folder means its regular files whose names have no dot (so not
// the .dat and .u8 indexes, nor hidden files), sorted by name and concatenated; symbolic
// links and subfolders are skipped. Each byte is one of 97 classes: '\n' → 0, printable
// ASCII 32..126 → 1..95, any other byte → 96. The first 90% of the bytes are the training
// part, the last 10% the held-out part.
//
// Sample of `seed`: a window of context + 1 bytes at a uniform offset, in the held-out part
// for seeds below 2^32 (what evaluation draws: lsrl model eval, the held-out score of
// lsrl train), else in the training part (training draws (S + 1)·2^32 + i). Input: one-hot
// rows (width 97) of the first `context` bytes; target at every position: the class of the
// byte after it. A corpus is read once per process and path (the cache is shared by all
// threads).
//
//   CharLmParams p{"/tmp/book.txt", 32};
//   CharLmSample s = charLmSample(p, 7);   // s.tokens [32] classes, s.targets [32]
//   Sequence x = oneHot(s.tokens, kCharClasses);
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace lsrl::seed_models {

inline constexpr int kCharClasses = 97;
inline constexpr const char* kDefaultCharCorpus = "/usr/share/games/fortunes";
// Seeds below this draw from the held-out part.
inline constexpr uint64_t kCharHeldOutSeeds = uint64_t{1} << 32;

// '\n' → 0, 32..126 → 1..95, anything else → 96.
int charClass(unsigned char byte);

struct CharLmParams {
  std::string text;   // "text": a file or folder; empty: kDefaultCharCorpus
  int context = 128;  // "lm_context": input tokens per sample

  std::string corpusPath() const { return text.empty() ? kDefaultCharCorpus : text; }
};

// "text" and "lm_context" of a model config (missing: the defaults above). Throws
// lsrl::Error "lattice config: ..." for a key of the wrong type or lm_context outside 1..10^6.
CharLmParams charLmParams(const nlohmann::json& config);
// Throws lsrl::Error "char_lm: ..." unless d_in is 97 and d_out at least 97.
void checkCharLmWidths(int dIn, int dOut);

struct CharCorpus {
  std::string path;
  std::vector<uint8_t> classes;  // one per byte of the text
  size_t trainEnd = 0;           // classes[0, trainEnd) train, [trainEnd, size) held out
};

// The corpus at `path`, read and cached on first use (thread-safe). Throws lsrl::Error
// naming the path for a missing or unreadable corpus (with the Debian package to install)
// or a folder without text files.
std::shared_ptr<const CharCorpus> charCorpus(const std::string& path);

struct CharLmSample {
  std::vector<int> tokens;   // [context] classes
  std::vector<int> targets;  // [context]: the class of the next byte
  size_t offset = 0;         // of the window's first byte in the corpus
  bool heldOut = false;
};

// Deterministic per (corpus, context, seed). Throws lsrl::Error "char_lm: ..." for
// context < 1, or a part of the corpus shorter than a window.
CharLmSample charLmSample(const CharLmParams& p, uint64_t seed);

}  // namespace lsrl::seed_models
