#include "app/studio/common/paper_prompt.h"

#include <algorithm>
#include <sstream>
#include <string_view>
#include <unordered_set>

#include "core/programs/prompts.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

std::vector<int> ints(const std::string& text) {
  std::vector<int> out;
  std::istringstream in(text);
  for (int v; in >> v;) out.push_back(v);
  return out;
}

std::string intsText(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + std::to_string(v[i]);
  return s;
}

// "3 1 9 : 9 9 9; ..." as a dictionary (the constants above are well formed).
Dictionary dictionary(const std::string& text) {
  Dictionary d;
  std::istringstream in(text);
  for (std::string entry; std::getline(in, entry, ';');) {
    const size_t colon = entry.find(':');
    d.push_back({ints(entry.substr(0, colon)), ints(entry.substr(colon + 1))});
  }
  return d;
}

}  // namespace

PaperProgramGuess guessPaperProgram(const Graph& g) {
  PaperProgramGuess guess;
  const NodeId input = g.input();
  if (input == kNoNode) return guess;
  guess.width = g.node(input).dim;
  if (guess.width == 1 && g.findByName("ones") != kNoNode) {
    guess.program = PaperProgram::MoreOnes;
  } else if (guess.width == 1) {
    // out_0, out_1, ...: one name lookup pass, not one per key (L = 1000 has 2*10^5 nodes).
    std::unordered_set<std::string_view> names;
    for (const Node& n : g.nodes())
      if (!n.removed && n.name.starts_with("out_")) names.insert(n.name);
    while (names.count("out_" + std::to_string(guess.L))) ++guess.L;
    if (guess.L > 0) guess.program = PaperProgram::Tok2tok;
  } else if (guess.width >= 4) {
    guess.program = PaperProgram::Vec2vec;
  }
  return guess;
}

std::optional<FirstPrompt> firstPrompt(const Graph& g) {
  const PaperProgramGuess guess = guessPaperProgram(g);
  FirstPrompt p;
  try {
    switch (guess.program) {
      case PaperProgram::Tok2tok: {
        Dictionary dict;
        std::vector<int> query;
        if (guess.L == 3) {
          dict = dictionary(kTok2tokL3Dictionary);
          query = ints(kTok2tokL3Query);
        } else {
          Tok2tokCase c = randomDictionary(kTok2tokEntries, guess.L, kTok2tokVocabulary, 0);
          dict = std::move(c.dictionary);
          query = std::move(c.query);
        }
        p.tokens = tok2tokInput(dict, query, guess.L);
        p.description = "tok2tok: query " + intsText(query) + ", expected " +
                        intsText(tok2tokExpected(dict, query, guess.L));
        return p;
      }
      case PaperProgram::Vec2vec: {
        const int m = guess.width - 3;
        const TargetFunction f = smoothTestFunction(2, m, 1);
        p.tokens = vec2vecInput(std::vector<double>{0.3, 0.7}, 2, m, kVec2vecCells, f);
        p.description =
            "vec2vec: query (3/10, 7/10) on a " + std::to_string(kVec2vecCells) + "-cell grid";
        return p;
      }
      case PaperProgram::MoreOnes:
      case PaperProgram::None:
        break;
    }
  } catch (const Error&) {
    // A program that only looks like a paper program: the generic prompt below.
  }
  if (guess.width <= 0) return std::nullopt;
  p.tokens.clear();
  for (const char bit : std::string_view(kMoreOnesBits))
    p.tokens.push_back(ExactVector(static_cast<size_t>(guess.width), Exact(bit - '0')));
  p.description = guess.program == PaperProgram::MoreOnes
                      ? std::string("more_ones: ") + kMoreOnesBits
                      : "bits " + std::string(kMoreOnesBits) + " on every input";
  return p;
}

}  // namespace lsrl::studio
