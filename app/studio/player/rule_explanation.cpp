#include "app/studio/player/rule_explanation.h"

#include <string>

#include "core/compiler/compiler.h"

namespace lsrl::studio {

QString ruleExplanation(std::string_view rule) {
  if (const std::optional<CompileRule> r = compileRule(rule))
    return QString::fromStdString(r->explanation);
  // A history file from another version may name a rule this one does not have.
  return QStringLiteral("a rewrite this version of the compiler does not know (\"%1\")")
      .arg(QString::fromUtf8(rule.data(), static_cast<int>(rule.size())));
}

}  // namespace lsrl::studio
