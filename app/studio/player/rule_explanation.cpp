#include "app/studio/player/rule_explanation.h"

#include <array>
#include <utility>

namespace lsrl::studio {

QString ruleExplanation(std::string_view rule) {
  // Keyed by the rule's full name: "5A push Slices" and "5A Slice-Multi bypass" differ.
  static const std::array<std::pair<std::string_view, const char*>, 19> kSentences{{
      {"F1 fold Linear-Linear",
       "a Linear read only by another Linear is multiplied into it: one Linear"},
      {"F2 fold ReLU-ReLU", "a ReLU of a ReLU reads the first one's input (ReLU is idempotent)"},
      {"F3 fold Linear-LinState",
       "a Linear feeding a LinState is absorbed into the state's input matrix and bias"},
      {"F4 fold Concat-duplicate",
       "a Concat of copies of one node becomes a duplicating Linear [I; I; ...]"},
      {"1A only Multi",
       "every reader is the same Multi of the branch node: one Multi replaces them"},
      {"1B Multi bypass",
       "a Multi also passes its inputs through, and Slices give the product and the inputs to "
       "their readers"},
      {"2 only LinState",
       "LinStates reading the same node merge into one block-diagonal LinState followed by "
       "Slices"},
      {"3 only ReLU", "ReLUs reading the same node are one ReLU"},
      {"4 only Concat", "Concats reading only the branch node become duplicating Linears"},
      {"5A push Slices",
       "Slices of the branch node move past their readers (ReLU, Concat), towards the end"},
      {"5A Slice-Multi bypass",
       "Slices feeding Multis are bypassed so that the Multis read the branch node whole"},
      {"5B stack Linears",
       "Linears reading the same node become one Linear with stacked rows, followed by "
       "Slices"},
      {"6 LinState pass-through",
       "the other readers read a pass-through LinState, so that case 2 merges the states"},
      {"7A Linear-ReLU: bypass ReLUs",
       "the ReLUs read an identity Linear, so that 5B stacks the Linears and 3 merges the "
       "ReLUs"},
      {"7B Linear-ReLU: bypass Linears",
       "Linears not feeding exactly one ReLU read a ReLU identity bypass, which reaches 7A"},
      {"8 Linear-Concat: bypass Concats", "the Concats read an identity Linear"},
      {"9 ReLU-Concat: bypass Concats", "the Concats read a ReLU identity bypass"},
      {"10 Linear-ReLU-Concat: bypass",
       "the Concats, and Linears not feeding a ReLU, read a ReLU identity bypass"},
      {"O1 compact",
       "size optimisation: equal values merged, dead dimensions and identity Linears removed"},
  }};
  for (const auto& [name, sentence] : kSentences) {
    if (name == rule) return QString::fromUtf8(sentence);
  }
  return QStringLiteral("a rewrite of the compiler");
}

}  // namespace lsrl::studio
