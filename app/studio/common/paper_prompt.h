// Which of the paper's programs a graph is, guessed from the names their builders give
// (more_ones' "ones" state, tok2tok's out_0 … out_{L−1}, vec2vec's wide Input), and the
// prompt the explorer first runs it on: the Token stepper fills its prompt builder with it,
// the Live panel types it into its prompt line.
#pragma once

#include <optional>
#include <string>

#include "core/executor/executor.h"
#include "core/graph/graph.h"

namespace lsrl::studio {

enum class PaperProgram { None, MoreOnes, Tok2tok, Vec2vec };

struct PaperProgramGuess {
  PaperProgram program = PaperProgram::None;
  int width = 0;  // the Input's
  int L = 0;      // tok2tok: key and value length
};
PaperProgramGuess guessPaperProgram(const Graph& g);

// The first prompts: more_ones' bits, tok2tok L=3's dictionary and query (other L: a
// seeded random dictionary of kTok2tokEntries entries), vec2vec's query on a 4-cell grid.
inline constexpr const char* kMoreOnesBits = "10110001";
inline constexpr const char* kTok2tokL3Dictionary =
    "3 1 9 : 9 9 9; 3 5 1 : 1 2 1; 4 2 6 : 9 2 5; 8 5 6 : 8 8 6";
inline constexpr const char* kTok2tokL3Query = "4 2 6";
inline constexpr int kTok2tokEntries = 4;
inline constexpr int kTok2tokVocabulary = 10;
inline constexpr const char* kVec2vecQuery = "3/10, 7/10";
inline constexpr int kVec2vecCells = 4;

struct FirstPrompt {
  ExactSequence tokens;
  std::string description;  // "tok2tok: query 4 2 6, expected 9 2 5"
};
// The paper program's first prompt; for any other program with an Input, kMoreOnesBits as
// tokens of its width (each value repeated); none without an Input.
std::optional<FirstPrompt> firstPrompt(const Graph& g);

}  // namespace lsrl::studio
