// One sentence per compiler rule (docs/compiler.md, lsrl.md §3), for the player's step
// label: "5B stack Linears: two Linears reading the same node become one Linear ...".
#pragma once

#include <QString>
#include <string_view>

namespace lsrl::studio {

// What the rule named `rule` (as in CompileResult::ruleCounts) does, in one sentence;
// a generic sentence for a name it does not know.
QString ruleExplanation(std::string_view rule);

}  // namespace lsrl::studio
