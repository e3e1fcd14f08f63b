// One sentence per compiler rule for the player's step label ("5B stack Linears: two
// Linears reading the same node become one Linear ..."), read from the rule itself
// (core/compiler/rule.h's RuleIdentity, through compileRule).
#pragma once

#include <QString>
#include <string_view>

namespace lsrl::studio {

// What the rule `rule` (an id as in CompileResult::ruleCounts) does, in one sentence; for
// an id this compiler does not have, a sentence saying so, naming it.
QString ruleExplanation(std::string_view rule);

}  // namespace lsrl::studio
